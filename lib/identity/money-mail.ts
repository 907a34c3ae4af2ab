import { and, eq, inArray, or } from "drizzle-orm";
import { db } from "@/db";
import { merchants, users, type OrderRefund, type Withdrawal } from "@/db/schema";
import { networkName } from "@/lib/chain/network-names";
import { formatCrypto, formatDateTime, formatMoney, translate, translator, type Locale } from "@/lib/i18n";
import { mailInBackground } from "@/lib/mail/background";
import { sendMail } from "@/lib/mail/mailer";
import { moneyOutMail } from "@/lib/mail/messages";
import { apiKeyLabels, type Actor } from "./audit";
import { actorName } from "./audit-text";

// Mail to a merchant's owners and admins, and to the user who acted, whenever money is asked to
// leave: a withdrawal (dashboard or API) or a refund. Whoever took over a session, a password or an
// API key, the people who can stop it hear of each request as it is made (docs/security.md). Sent
// after the request's answer (lib/mail/background.ts): an API withdrawal does not wait for SMTP.

export type Recipient = { email: string; role: string };

/** The company's name and who to tell: its owners and admins, plus `userId` (the acting user) whatever their role. */
export async function teamToTell(
  merchantId: string,
  userId: string | null,
): Promise<{ company: string; recipients: Recipient[] } | null> {
  const [merchant] = await db()
    .select({ companyName: merchants.companyName })
    .from(merchants)
    .where(eq(merchants.id, merchantId))
    .limit(1);
  if (!merchant) return null;
  const recipients = await db()
    .select({ email: users.email, role: users.role })
    .from(users)
    .where(
      and(
        eq(users.merchantId, merchantId),
        userId
          ? or(inArray(users.role, ["owner", "admin"]), eq(users.id, userId))
          : inArray(users.role, ["owner", "admin"]),
      ),
    );
  return { company: merchant.companyName, recipients };
}

function mailMoneyOut(
  merchantId: string,
  actor: Actor,
  locale: Locale,
  kind: "withdrawal" | "refund",
  amountCentavos: number,
  destination: string,
): void {
  // The request's time, not the send's.
  const time = formatDateTime(new Date(), locale);
  mailInBackground(`${kind} requested`, async () => {
    const team = await teamToTell(merchantId, actor.userId);
    if (!team) return;
    const text = moneyOutMail(locale, kind, {
      company: team.company,
      amount: formatMoney(amountCentavos, locale),
      destination,
      who: actorName(translator(locale), actor.email, await apiKeyLabels(merchantId, [actor.email])),
      ip: actor.ip ?? translate(locale, "mail.unknownAddress"),
      time,
    });
    for (const r of team.recipients) await sendMail({ ...text, to: r.email, merchantId });
  });
}

/** Where a withdrawal goes, as the mail names it: the PIX key, or the address with its network and tokens. */
function withdrawalDestination(w: Withdrawal, locale: Locale): string {
  if (w.kind === "pix_out") return `${translate(locale, "fields.pixKey")} ${w.pixKey}`;
  const tokens = w.tokenAmount ? `, ${formatCrypto(w.tokenAmount, locale)} ${w.token}` : "";
  return `${w.toAddress} (${networkName(w.network ?? "")}${tokens})`;
}

/** A withdrawal was accepted: its value, where it goes, who asked, from where, when. */
export function mailWithdrawalRequested(actor: Actor, locale: Locale, w: Withdrawal): void {
  mailMoneyOut(w.merchantId, actor, locale, "withdrawal", w.valueCentavos, withdrawalDestination(w, locale));
}

/** A refund was accepted: its value and the order whose payer it goes back to. */
/** `orderName`: the order as the merchant knows it (lib/orders/title.ts plainOrderName); its id when unknown. */
export function mailRefundRequested(actor: Actor, locale: Locale, refund: OrderRefund, orderName?: string): void {
  mailMoneyOut(refund.merchantId, actor, locale, "refund", refund.valueCentavos, orderName ?? refund.orderId);
}
