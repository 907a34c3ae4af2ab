import { describe, expect, it } from "vitest";
import { translator } from "@/lib/i18n";
import { orderTitleText } from "@/lib/dashboard/order-title";
import { orderNaming, orderTitle, plainOrderName, type TitledOrder } from "./title";

const base: TitledOrder = {
  id: "4e67b6b0-dc5d-4f3e-9a51-0c1d2e3f4a5b",
  kind: "pix",
  valueCentavos: 2590,
  paymentLinkId: "k3Zq9xYp",
  reference: {},
};
const pt = translator("pt-BR");
const brl = (c: number) => new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" }).format(c / 100);
const text = (o: TitledOrder) => orderTitleText(orderTitle(o), pt, brl);

describe("an order's title", () => {
  it("is the merchant's own reference first (orderId, then orderRequest, then description), with the customer beside it", () => {
    const o = {
      ...base,
      reference: { orderId: "1234", orderRequest: "req-9", description: "Camiseta", name: "Maria Souza" },
    };
    expect(text(o)).toBe("Pedido 1234");
    expect(orderNaming(o).customer).toBe("Maria Souza");
    expect(text({ ...base, reference: { orderRequest: "req-9", description: "Camiseta" } })).toBe("Pedido req-9");
    expect(text({ ...base, reference: { description: "Camiseta azul" } })).toBe("Pedido Camiseta azul");
  });

  it("is the customer's name when there is no reference, not repeated beside it", () => {
    const o = { ...base, reference: { name: "João Pereira", email: "joao@example.com" } };
    expect(text(o)).toBe("João Pereira");
    expect(orderNaming(o).customer).toBeNull();
  });

  it("is whom a Crypto-PIX payment pays, else the kind and amount with the short id", () => {
    expect(
      text({
        ...base,
        kind: "crypto_pix",
        paymentLinkId: null,
        reference: { recipientName: "Fornecedor LTDA", pixKey: "x@y.z" },
      }),
    ).toBe("PIX para Fornecedor LTDA");
    expect(text({ ...base, reference: { orderId: "  " } })).toBe("PIX de R$\u00a025,90 · 4e67b6b0");
    expect(text({ ...base, kind: "onchain", paymentLinkId: null, reference: null })).toBe(
      "Depósito on-chain de R$\u00a025,90 · 4e67b6b0",
    );
  });

  it("reads without a catalog in a bilingual e-mail", () => {
    expect(plainOrderName({ ...base, reference: { orderId: "1234", name: "Maria Souza" } })).toBe("1234 (Maria Souza)");
    expect(plainOrderName(base)).toBe("k3Zq9xYp");
  });
});
