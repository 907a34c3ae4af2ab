import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { apiKeys, auditEvents } from "@/db/schema";
import { createApiKey } from "@/lib/merchants/service";
import { apiKeyLabels } from "@/lib/identity/audit";
import { actorName, auditDetail, auditDetailText } from "@/lib/identity/audit-text";
import { translator } from "@/lib/i18n";
import { api, seedMerchant } from "./helpers";

// The audit trail and the money e-mails name things as the dashboard shows them: an API key by its
// name and last four, a refunded order by its reference and customer, never by ids shown nowhere.

const t = translator("pt-BR");

describe("audit trail names", () => {
  it("a refund requested with an API key: the key by name and last four, the order by its reference", async () => {
    const { merchant } = await seedMerchant();
    const key = await createApiKey(merchant.id, "Loja online", { mode: "sandbox" });
    const [stored] = await db().select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(stored.lastFour).toBe(key.key.slice(-4));
    const created = await api("POST", "/api/v1/order/create/pix", {
      apiKey: key.key,
      body: { value: 20, orderId: "sale-1001", name: "Maria Souza" },
    });
    const id = created.body.pixOrder._id;
    await api("POST", `/api/v1/sandbox/orders/${id}/pay`, { apiKey: key.key });
    const refund = await api("POST", `/api/v1/order/${id}/refund`, { apiKey: key.key, body: { value: 5 } });
    expect(refund.status).toBe(201);

    const [row] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.merchantId, merchant.id), eq(auditEvents.action, "refund.requested")));
    const keys = await apiKeyLabels(merchant.id, [row.actor]);
    expect(actorName(t, row.actor, keys)).toBe(`Chave de API “Loja online” (${key.prefix}…${key.key.slice(-4)})`);
    expect(auditDetailText(t, auditDetail(t, "pt-BR", row.action, row.details)!)).toMatch(
      /^R\$\s5,00 do pedido sale-1001 \(Maria Souza\)\.$/,
    );
    // Another merchant's key is not named from this merchant's trail.
    const other = await seedMerchant();
    expect((await apiKeyLabels(other.merchant.id, [row.actor])).size).toBe(0);
  });
});
