import { describe, expect, it } from "vitest";
import { InsufficientBalance, InvalidInput, LimitExceeded, NotFound, UpstreamUnavailable } from "@/lib/errors";
import { formatBrl } from "@/lib/money";
import { apiErrorMessage } from "./api-errors";

const nb = (s: string) => s.replace(/\s/g, " ");

describe("service errors on the dashboard", () => {
  it("are translated with their figures for a pt-BR merchant", () => {
    const err = new InsufficientBalance(`Insufficient balance: this withdrawal needs ${formatBrl(5025)} and the available balance is ${formatBrl(1000)}`);
    expect(nb(apiErrorMessage(err, "pt-BR"))).toBe("Saldo insuficiente: este saque precisa de R$ 50,25 e o saldo disponível é R$ 10,00.");
    const limit = new LimitExceeded(`Daily withdrawal limit exceeded: the standard account limit is ${formatBrl(500000)} per day and ${formatBrl(12000)} is left today`);
    expect(nb(apiErrorMessage(limit, "pt-BR"))).toBe("Acima do limite diário de saques (R$ 5.000,00); hoje restam R$ 120,00.");
    expect(apiErrorMessage(new InvalidInput("Invalid PIX QR code: CRC mismatch"), "pt-BR")).toBe("Código PIX inválido: confira se você copiou o código inteiro.");
    expect(apiErrorMessage(new InvalidInput("Token not supported: BUSD is not available on polygon"), "pt-BR")).toBe("O token BUSD não está disponível na rede Polygon.");
  });

  it("never reach a pt-BR merchant in English, even when the sentence is unknown", () => {
    expect(apiErrorMessage(new UpstreamUnavailable("LND node refused to create the invoice: boom"), "pt-BR")).toMatch(/^Um serviço externo/);
    expect(apiErrorMessage(new NotFound("Order not found"), "pt-BR")).toBe("Não encontrado.");
    expect(apiErrorMessage(new InvalidInput("Some new rule nobody translated"), "pt-BR")).toMatch(/^O pedido foi recusado/);
  });

  it("keep the service's own sentence in English, and translate catalog keys", () => {
    expect(apiErrorMessage(new InvalidInput("Withdrawal value is too small to send any tokens"), "en")).toBe("Withdrawal value is too small to send any tokens");
    expect(apiErrorMessage(new InvalidInput("auth.emailTaken"), "pt-BR")).toBe("Já existe uma conta com este e-mail.");
  });
});
