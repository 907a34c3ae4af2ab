import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Destinations, type DestinationItem } from "@/components/dashboard/destinations";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { db } from "@/db";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { payoutKeyHeldUntil } from "@/lib/identity/payout-hold";
import { can } from "@/lib/identity/roles";
import { destinationsOf, isHolding, type Destination } from "@/lib/withdrawals/destinations";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("destinations.title") };
}

function item(d: Destination): DestinationItem {
  return {
    id: d.id,
    kind: d.kind,
    value: d.value,
    label: d.label,
    status: d.status === "confirmed" ? "confirmed" : isHolding(d) ? "held" : "released",
    holdUntil: d.holdUntil?.toISOString() ?? null,
    lastUsedAt: d.lastUsedAt?.toISOString() ?? null,
  };
}

/** The address book, for roles that may withdraw (and owners, who confirm); others get the same 404 as a missing page. */
export default async function DestinationsPage() {
  const { merchant, role } = await requireMerchant();
  if (!can(role, "withdrawals.create") && !can(role, "destinations.confirm")) notFound();
  const [{ t }, rows] = await Promise.all([getI18n(), destinationsOf(db(), merchant.id)]);
  const heldUntil = payoutKeyHeldUntil(merchant);
  return (
    <>
      <PageHeader title={t("destinations.title")}>
        <ButtonLink href="/dashboard/withdrawals" variant="secondary">
          {t("withdrawals.title")}
        </ButtonLink>
      </PageHeader>
      <Destinations
        items={rows.filter((d) => !(d.kind === "pix_key" && d.value === merchant.pixKey)).map(item)}
        registered={merchant.pixKey ? { key: merchant.pixKey, heldUntil: heldUntil?.toISOString() ?? null } : null}
        allowlist={merchant.apiDestinationAllowlist}
        holdHours={env().DESTINATION_HOLD_HOURS}
        canAdd={can(role, "withdrawals.create")}
        canConfirm={can(role, "destinations.confirm")}
        canSwitch={can(role, "destinations.allowlist")}
      />
    </>
  );
}
