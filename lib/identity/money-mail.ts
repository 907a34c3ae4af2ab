import { and, eq, inArray, or } from "drizzle-orm";
import { db, type Executor } from "@/db";
import { merchants, users, type OrderRefund, type Withdrawal } from "@/db/schema";
import { networkName } from "@/lib/chain/network-names";
import { formatCrypto, formatDateTime, formatMoney, translate, translator, type Locale } from "@/lib/i18n";
import { queueMail } from "@/lib/mail/mailer";
import { moneyOutMail } from "@/lib/mail/messages";
import { apiKeyLabels, type Actor } from "./audit";
import { actorName } from "./audit-text";

// Mail to a merchant's owners and admins, and to the user who acted, whenever money is asked to
// leave: a withdrawal (dashboard or API), a return of unapplied funds, or a refund. Whoever took
// over a session, a password or an API key, the people who can stop it hear of each request as it
// is made (docs/security.md). Each is written in the transaction that records the request
// (queueMail: it exists exactly when the request does; SMTP is spoken after commit).

export type Recipient = { email: string; role: string };

/** The company's name and who to tell: its owners and admins, plus `userId` (the acting user) whatever their role. */
export async function teamToTell(
  merchantId: string,
  userId: string | null,
  ex: Executor = db(),
): Promise<{ company: string; recipients: Recipient[] } | null> {
  const [merchant] = await ex
    .select({ companyName: merchants.companyName })
    .from(merchants)
    .where(eq(merchants.id, merchantId))
    .limit(1);
  if (!merchant) return null;
  const recipients = await ex
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

/** Where a withdrawal goes, as the mail names it: the PIX key, or the address with its network and tokens. */
function withdrawalDestination(w: Withdrawal, locale: Locale): string {
  if (w.kind === "pix_out") return `${translate(locale, "fields.pixKey")} ${w.pixKey}`;
  const tokens = w.tokenAmount ? `, ${formatCrypto(w.tokenAmount, locale)} ${w.token}` : "";
  return `${w.toAddress} (${networkName(w.network ?? "")}${tokens})`;
}

/**
 * In the withdrawal's transaction: its value, where it goes, who asked, from where, when, and, when
 * it waits for a new destination, until when and what releases it.
 */
export async function queueWithdrawalMail(
  tx: Executor,
  actor: Actor & { merchantId: string },
  locale: Locale,
  w: Withdrawal,
  waitsUntil: Date | null,
): Promise<void> {
  await queueMoneyOutMail(
    tx,
    actor,
    locale,
    "withdrawal",
    w.valueCentavos,
    withdrawalDestination(w, locale),
    waitsUntil,
  );
}

/** In the return's transaction: tokens of unapplied funds sent back to an address, named with its network. */
export async function queueReturnMail(
  tx: Executor,
  actor: Actor & { merchantId: string },
  locale: Locale,
  r: { amount: string; asset: string; network: string; to: string },
  waitsUntil: Date | null,
): Promise<void> {
  const what = `${formatCrypto(r.amount, locale)} ${r.asset}`;
  await queueMoneyOutMail(tx, actor, locale, "return", what, `${r.to} (${networkName(r.network)})`, waitsUntil);
}

async function queueMoneyOutMail(
  tx: Executor,
  actor: Actor & { merchantId: string },
  locale: Locale,
  kind: "withdrawal" | "return" | "refund",
  amount: number | string,
  destination: string,
  waitsUntil: Date | null,
): Promise<void> {
  const team = await teamToTell(actor.merchantId, actor.userId, tx);
  if (!team) return;
  const text = moneyOutMail(locale, kind, {
    company: team.company,
    amount: typeof amount === "number" ? formatMoney(amount, locale) : amount,
    destination,
    who: actorName(translator(locale), actor.email, await apiKeyLabels(actor.merchantId, [actor.email], tx)),
    ip: actor.ip ?? translate(locale, "mail.unknownAddress"),
    time: formatDateTime(new Date(), locale),
    waits: waitsUntil ? translate(locale, "mail.moneyOut.waits", { until: formatDateTime(waitsUntil, locale) }) : "",
  });
  for (const r of team.recipients) await queueMail(tx, { ...text, to: r.email, merchantId: actor.merchantId });
}

/**
 * In the refund's transaction: a refund was accepted, its value and the order whose payer it goes back
 * to (`orderName`: the order as the merchant knows it, lib/orders/title.ts plainOrderName).
 */
export async function queueRefundMail(
  tx: Executor,
  actor: Actor & { merchantId: string },
  locale: Locale,
  refund: OrderRefund,
  orderName: string,
): Promise<void> {
  await queueMoneyOutMail(tx, actor, locale, "refund", refund.valueCentavos, orderName, null);
}
