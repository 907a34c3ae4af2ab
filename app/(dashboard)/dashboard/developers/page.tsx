import type { Metadata } from "next";
import Link from "next/link";
import { ApiKeys } from "@/components/dashboard/api-keys";
import { SandboxOrders } from "@/components/dashboard/sandbox-orders";
import { WebhooksPanel } from "@/components/dashboard/webhooks-panel";
import { buttonClass } from "@/components/ui/button";
import { Card, CardTitle, PageHeader } from "@/components/ui/card";
import { requireMerchant } from "@/lib/identity/dashboard/session";
import { pendingOrders } from "@/lib/dashboard/server/orders";
import { getWebhookPanel } from "@/lib/dashboard/server/webhooks";
import { env } from "@/lib/env";
import { getI18n } from "@/lib/i18n/server";
import { grantableScopes } from "@/lib/identity/api-keys/scopes";
import { listApiKeys } from "@/lib/merchants/service";
import { can } from "@/lib/identity/roles";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getI18n()).t("developers.title") };
}

export default async function DevelopersPage() {
  const { merchant, role } = await requireMerchant();
  const sandbox = env().PAYMENTS_MODE === "sandbox";
  const [{ t }, keys, webhooks, pending] = await Promise.all([
    getI18n(),
    listApiKeys(merchant.id),
    getWebhookPanel(merchant.id),
    sandbox ? pendingOrders(merchant.id) : Promise.resolve([]),
  ]);
  return (
    <>
      <PageHeader title={t("developers.title")} />
      <div className="space-y-6">
        <Card aria-labelledby="keys-title">
          <CardTitle id="keys-title">{t("developers.apiKeys")}</CardTitle>
          <p className="mb-4 mt-1 text-sm text-slate-600">{t("developers.apiKeysBody")}</p>
          <ApiKeys
            canManage={can(role, "apiKeys.manage")}
            grantable={grantableScopes(role)}
            keys={keys.map((k) => ({
              id: k.id,
              name: k.name,
              prefix: k.prefix,
              lastFour: k.lastFour,
              scopes: k.scopes,
              createdAt: k.createdAt.toISOString(),
              lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
              revokedAt: k.revokedAt?.toISOString() ?? null,
            }))}
          />
        </Card>

        <Card aria-labelledby="webhooks-title">
          <CardTitle id="webhooks-title">{t("developers.webhooks")}</CardTitle>
          <p className="mb-4 mt-1 text-sm text-slate-600">{t("developers.webhooksBody")}</p>
          <WebhooksPanel initial={webhooks} canManage={can(role, "webhooks.manage")} />
        </Card>

        {sandbox && can(role, "orders.create") ? (
          <Card aria-labelledby="sandbox-title">
            <CardTitle id="sandbox-title">{t("developers.sandbox")}</CardTitle>
            <p className="mb-4 mt-1 text-sm text-slate-600">{t("developers.sandboxBody")}</p>
            <SandboxOrders orders={pending} />
          </Card>
        ) : null}

        <Card aria-labelledby="docs-title">
          <CardTitle id="docs-title">{t("developers.docs")}</CardTitle>
          <p className="mb-4 mt-1 text-sm text-slate-600">{t("developers.docsBody")}</p>
          <Link href="/docs" className={buttonClass("secondary")}>
            {t("developers.openDocs")}
          </Link>
        </Card>
      </div>
    </>
  );
}
