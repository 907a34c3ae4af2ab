import { describe, expect, it } from "vitest";
import { translator } from "@/lib/i18n";
import { AUDIT_ACTIONS, apiKeyActor } from "./audit";
import { actionText, actorName, auditDetail, auditDetailText } from "./audit-text";

const t = translator("pt-BR");
const sentence = (action: string, details: unknown) => {
  const d = auditDetail(t, "pt-BR", action, details);
  // Intl writes "R$" and the amount with a no-break space.
  return d ? auditDetailText(t, d).replace(/\u00a0/g, " ") : null;
};

describe("audit trail in words", () => {
  it("names every action from the catalogs", () => {
    for (const action of AUDIT_ACTIONS) expect(actionText(t, action)).not.toBe(t("audit.action.other"));
    expect(actionText(t, "something.new")).toBe("Outra ação");
  });

  it("writes amounts as money and roles, scopes and kinds in words, never the stored codes", () => {
    expect(sentence("withdrawal.requested", { kind: "pix_out", valueCentavos: 500_000, pixKey: "52998224725" })).toBe(
      "R$ 5.000,00 por PIX para 52998224725.",
    );
    expect(
      sentence("withdrawal.requested", {
        kind: "onchain",
        valueCentavos: 10_050,
        toAddress: "0xabc",
        network: "polygon",
      }),
    ).toBe("R$ 100,50 pela rede Polygon para 0xabc.");
    expect(sentence("team.invited", { email: "ana@example.com", role: "finance" })).toBe(
      "ana@example.com, como Financeiro.",
    );
    expect(sentence("team.roleChanged", { email: "ana@example.com", from: "viewer", to: "developer" })).toBe(
      "ana@example.com: de Leitor para Desenvolvedor.",
    );
    expect(sentence("apiKey.created", { name: "Loja", prefix: "sk_test_ab", scopes: ["full"] })).toBe(
      "Loja (sk_test_ab…), com acesso: Acesso total.",
    );
    expect(sentence("apiKey.created", { name: "Loja", prefix: "sk_test_ab", scopes: ["read", "withdrawals"] })).toBe(
      "Loja (sk_test_ab…), com acesso: Leitura, Saques.",
    );
    expect(sentence("destination.added", { kind: "pix_key", value: "a@b.co", label: "" })).toBe("Chave PIX: a@b.co.");
    expect(sentence("refund.requested", { orderId: "0123456789abcdef", valueCentavos: 1000 })).toBe(
      "R$ 10,00 do pedido 01234567.",
    );
    expect(sentence("auth.signIn", { secondFactor: false })).toBe("Só com a senha.");
    expect(sentence("auth.sessionRevoked", null)).toBeNull();
  });

  it("names who acted when it was not a person", () => {
    expect(actorName(t, apiKeyActor("m", "3f2a", "1.2.3.4").email)).toBe("Chave de API 3f2a");
    expect(actorName(t, "ana@example.com")).toBe("ana@example.com");
  });

  it("names an API key by its name and last four, and a refunded order as the merchant knows it", () => {
    const keys = new Map([["3f2a", { name: "Loja online", prefix: "sk_test_AbCd", lastFour: "wXyZ" }]]);
    expect(actorName(t, apiKeyActor("m", "3f2a", "1.2.3.4").email, keys)).toBe(
      "Chave de API “Loja online” (sk_test_AbCd…wXyZ)",
    );
    // A key the map does not know (deleted data, another merchant's) is named by its id, as before.
    expect(actorName(t, apiKeyActor("m", "9b9b", "1.2.3.4").email, keys)).toBe("Chave de API 9b9b");
    expect(sentence("apiKey.revoked", { name: "Loja", prefix: "sk_test_AbCd", lastFour: "wXyZ" })).toBe(
      "Loja (sk_test_AbCd…wXyZ).",
    );
    expect(
      sentence("refund.requested", {
        orderId: "0123456789abcdef",
        orderName: "sale-1001 (Maria Souza)",
        valueCentavos: 500,
      }),
    ).toBe("R$ 5,00 do pedido sale-1001 (Maria Souza).");
  });
});
