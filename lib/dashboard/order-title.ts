import type { Translator } from "@/lib/i18n";
import type { OrderTitle } from "@/lib/orders/title";

// An order's title (lib/orders/title.ts) in the reader's language: "Pedido 1042", "Maria Souza",
// "PIX para Fornecedor LTDA", "PIX de R$ 25,90 · a1b2c3d4". The one way the dashboard names an order.

export function orderTitleText(title: OrderTitle, t: Translator, money: (centavos: number) => string): string {
  switch (title.by) {
    case "reference":
      return t("order.title", { id: title.text });
    case "customer":
      return title.text;
    case "recipient":
      return t("order.titleRecipient", { name: title.text });
    case "kind":
      return t("order.titleKind", {
        kind: t(`kind.${title.kind}`),
        amount: money(title.valueCentavos),
        id: title.shortId,
      });
  }
}
