import { db } from "@/db";
import type { Invoice, Order } from "@/db/schema";
import { DEFAULT_LOCALE, formatFullDay, formatMoney } from "@/lib/i18n";
import { log } from "@/lib/log";
import { mailInBackground } from "@/lib/mail/background";
import { sendMail } from "@/lib/mail/mailer";
import { invoiceMail } from "@/lib/mail/messages";
import { paymentLink } from "@/lib/links";
import { markMailed } from "./queries";
import { termViews } from "@/lib/invoice-state/terms";
import { lateTermLines, reliefTermLines } from "@/lib/invoice-state/words";

// The payer's mail (docs/api.md#invoices, notifyPayer): who bills them, how much, until when, what
// changes after the due date, and the link to their page. Sent after the invoice committed (SMTP, or
// the mail outbox without one), never holding the request; its time is kept on the invoice.

export function mailInvoiceToPayer(invoice: Invoice, order: Order, company: string): void {
  const to = invoice.payerEmail;
  if (!to) return;
  const locale = DEFAULT_LOCALE;
  const terms = termViews(invoice);
  const text = invoiceMail(locale, {
    company,
    payer: invoice.payerName,
    amount: formatMoney(invoice.originalCentavos, locale),
    due: formatFullDay(invoice.dueDate, locale),
    last: formatFullDay(invoice.lastPayableDay, locale),
    link: paymentLink(order.paymentLinkId),
    description: invoice.description ?? "",
    terms: [...reliefTermLines(terms, locale), ...lateTermLines(terms, locale)].map((l) => `- ${l}`).join("\n"),
  });
  mailInBackground("invoice to its payer", async () => {
    const result = await sendMail({ to, ...text, merchantId: invoice.merchantId });
    if (result === "failed") log.warn("invoice mail not sent", { invoiceId: invoice.id });
    else await markMailed(db(), invoice.id);
  });
}
