import { describe, expect, it } from "vitest";
import { en } from "./en";
import {
  catalogs,
  formatCrypto,
  formatDay,
  formatDuration,
  formatMoney,
  formatRate,
  formatSpan,
  LOCALES,
  translate,
  translateMaybe,
  translatePlural,
  withSpans,
} from "./index";
import { ptBR } from "./pt-BR";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("message catalogs", () => {
  it("English has exactly the pt-BR keys", () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(ptBR).sort());
  });

  it("every message is non-empty and uses the same placeholders in every language", () => {
    for (const key of Object.keys(ptBR) as (keyof typeof ptBR)[]) {
      for (const locale of LOCALES) {
        expect(catalogs[locale][key].trim(), `${locale} ${key}`).not.toBe("");
        expect(placeholders(catalogs[locale][key]), `${locale} ${key}`).toEqual(placeholders(ptBR[key]));
      }
    }
  });

  it("fills placeholders and leaves unknown ones visible", () => {
    expect(translate("en", "order.title", { id: "abc" })).toBe("Order abc");
    expect(translate("pt-BR", "order.title")).toBe("Pedido {id}");
  });

  it("translates catalog keys and passes other text through", () => {
    expect(translateMaybe("en", "errors.required")).toBe("Required.");
    expect(translateMaybe("en", "value: must be greater than 0")).toBe("value: must be greater than 0");
  });
});

describe("plurals", () => {
  it("picks the form the count needs, never a (s)", () => {
    expect(translatePlural("pt-BR", "newOrder.hours", 1)).toBe("1 hora");
    expect(translatePlural("pt-BR", "newOrder.hours", 24)).toBe("24 horas");
    expect(translatePlural("en", "overview.todayCount", 1)).toBe("1 payment");
    expect(translatePlural("en", "overview.todayCount", 0)).toBe("0 payments");
    // CLDR's Portuguese "one" covers 0; Brazilian Portuguese writes zero in the plural.
    expect(translatePlural("pt-BR", "overview.todayCount", 0)).toBe("0 pagamentos");
    expect(translatePlural("pt-BR", "order.deliveryAttempts", 0)).toBe("0 tentativas");
    expect(translatePlural("pt-BR", "order.deliveryAttempts", 1)).toBe("1 tentativa");
    expect(translatePlural("pt-BR", "security.recoveryLeft", 1)).toBe("1 código de recuperação restante.");
    expect(translatePlural("pt-BR", "security.revokedOthers", 0)).toBe("0 outras sessões encerradas.");
    // Durations from configuration may be 1: written with their plural wherever they are shown.
    expect(withSpans("pt-BR", { minutes: 1, hours: 24, days: 1, link: "x" })).toEqual({
      minutes: "1 minuto",
      hours: "24 horas",
      days: "1 dia",
      link: "x",
    });
    expect(translate("pt-BR", "security.stepUpHint", withSpans("pt-BR", { minutes: 1 }))).toBe(
      "Necessário para esta ação; não será pedido de novo por 1 minuto.",
    );
    expect(translate("en", "security.stepUpHint", withSpans("en", { minutes: 1 }))).toBe(
      "Needed for this action; not asked again for 1 minute.",
    );
    for (const locale of LOCALES) for (const text of Object.values(catalogs[locale])) expect(text).not.toMatch(/\(s\)/);
  });
});

describe("locale formatting", () => {
  it("writes BRL the Brazilian way in pt-BR", () => {
    expect(formatMoney(123456, "pt-BR").replace(/\s/g, " ")).toBe("R$ 1.234,56");
    expect(formatMoney(123456, "en")).toBe("R$1,234.56");
  });

  it("writes rates with their own precision", () => {
    expect(formatRate("5.4", "pt-BR").replace(/\s/g, " ")).toBe("R$ 5,40");
    expect(formatRate("550000", "en")).toBe("R$550,000.00");
  });

  it("writes crypto amounts exactly, with the locale's separators", () => {
    expect(formatCrypto("1234.500000", "pt-BR")).toBe("1.234,5");
    expect(formatCrypto("0.000001", "en")).toBe("0.000001");
    expect(formatCrypto(27.777778, "en")).toBe("27.777778");
    expect(formatCrypto("100", "pt-BR")).toBe("100");
  });

  it("formats days and countdowns", () => {
    expect(formatDay("2026-03-07", "pt-BR")).toBe("07/03");
    expect(formatDay("2026-03-07", "en")).toBe("03/07");
    expect(formatDuration(59)).toBe("0:59");
    expect(formatDuration(15 * 60)).toBe("15:00");
    expect(formatDuration(3600 + 61)).toBe("1:01:01");
    expect(formatDuration(-5)).toBe("0:00");
    expect(formatSpan(86400)).toBe("24 h");
    expect(formatSpan(900)).toBe("15 min");
    expect(formatSpan(5400)).toBe("1 h 30 min");
    expect(formatSpan(8)).toBe("8 s");
  });
});
