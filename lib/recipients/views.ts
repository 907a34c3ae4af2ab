import type { Recipient, RecipientPayout } from "@/db/schema";
import { centavosToBrl } from "@/lib/money";
import { maskPixKey } from "@/lib/pix/keys";
import type { RecipientEntry } from "./queries";
import type { RecipientPayoutView, RecipientView, StatementEntryView } from "./schemas";

// What the API (and the dashboard) shows of a recipient: the document and key masked as receipts and
// withdrawals show them (lib/pix/keys maskPixKey), amounts in BRL.

export function recipientView(r: Recipient, heldUntil: Date | null): RecipientView {
  return {
    id: r.id,
    name: r.name,
    document: maskPixKey(r.document),
    documentType: r.document.length === 11 ? "cpf" : "cnpj",
    pixKey: maskPixKey(r.pixKey),
    pixKeyType: r.pixKeyType as RecipientView["pixKeyType"],
    pixKeyUsableAt: heldUntil ? heldUntil.toISOString() : null,
    email: r.email,
    reference: r.reference,
    balance: centavosToBrl(r.balanceCentavos),
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function statementEntryView(e: RecipientEntry & { balanceAfter: number }): StatementEntryView {
  return {
    id: e.id,
    kind: e.kind,
    amount: centavosToBrl(e.amountCentavos),
    balanceAfter: centavosToBrl(e.balanceAfter),
    refType: e.refType,
    refId: e.refId,
    description: e.description,
    createdAt: e.createdAt.toISOString(),
  };
}

export function recipientPayoutView(p: RecipientPayout): RecipientPayoutView {
  return {
    id: p.id,
    recipientId: p.recipientId,
    status: p.status,
    value: centavosToBrl(p.valueCentavos),
    amount: p.valueCentavos,
    pixKey: maskPixKey(p.pixKey),
    ...(p.failureReason ? { failureReason: p.failureReason } : {}),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    ...(p.completedAt ? { completedAt: p.completedAt.toISOString() } : {}),
  };
}
