"use client";

import Link from "next/link";
import { useActionState, useEffect, useState } from "react";
import { Card } from "@/components/ui/card";
import { FormMessage, Input, Select, Textarea } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { cn } from "@/components/ui/cn";
import { idle, type ActionState } from "@/lib/forms/action-state";
import {
  createCryptoPixAction,
  createDepositAction,
  createExchangeOrderAction,
  createLightningOrderAction,
  createPixOrderAction,
} from "@/lib/dashboard/actions/orders";
import type { NewOrderKind } from "@/lib/dashboard/order-kinds";
import { networkName } from "@/lib/chain/network-names";
import { formatRate, formatSpan } from "@/lib/i18n";
import { SplitParts } from "./split-parts";
import { useI18n } from "@/lib/i18n/client";

export type NewOrderSetup = {
  /** BRL rates for the hints, by symbol; a symbol missing has no hint. */
  rates: Record<string, string>;
  expirySeconds: Record<"exchange" | "lightning" | "onchain" | "crypto_pix", number>;
  /** Assets available per network, for deposits and Crypto-PIX. */
  depositAssets: Record<string, string[]>;
  cryptoPixAssets: Record<string, string[]>;
  /** A chain's smallest Crypto-PIX, in units of whichever token is paid (Lightning has none). */
  minimums: Record<string, string>;
  /** The merchant's active recipients a split may name (none: the split section says how to add one). */
  recipients: { id: string; name: string }[];
};

type Action = (prev: ActionState<unknown>, form: FormData) => Promise<ActionState<unknown>>;

const ACTIONS: Record<NewOrderKind, Action> = {
  pix: createPixOrderAction,
  exchange: createExchangeOrderAction,
  lightning: createLightningOrderAction,
  onchain: createDepositAction,
  crypto_pix: createCryptoPixAction,
};

/**
 * What the network asks of a Crypto-PIX: on a chain, its minimum in the chosen token and, at today's
 * rate, in reais (the PIX's amount must reach it); over Lightning, satoshis with no minimum.
 */
function CryptoPixMinimum({
  network,
  asset,
  setup,
}: {
  network: string;
  asset: string | undefined;
  setup: NewOrderSetup;
}) {
  const { t, money, crypto } = useI18n();
  if (network === "lightning")
    return <p className="text-xs text-slate-600 sm:col-span-2">{t("newOrder.cpixLightning")}</p>;
  const min = setup.minimums[network];
  if (!min || !asset) return null;
  const rate = setup.rates[asset];
  // Rounded up to the centavo: a PIX of that amount buys at least the minimum at this rate.
  const brl = rate ? money(Math.ceil(Number(min) * Number(rate) * 100)) : null;
  const vars = { network: networkName(network), min: crypto(min), asset, brl: brl ?? "" };
  return (
    <p className="text-xs text-slate-600 sm:col-span-2" data-testid="cpix-minimum">
      {brl ? t("newOrder.cpixMinimum", vars) : t("newOrder.cpixMinimumNoRate", vars)}
    </p>
  );
}

function NetworkAssetPickers({
  assets,
  values,
  errors,
  setup,
}: {
  assets: Record<string, string[]>;
  values?: Record<string, string>;
  errors?: Record<string, string[]>;
  /** Given for Crypto-PIX, whose pickers say the network's minimum. */
  setup?: NewOrderSetup;
}) {
  const { t } = useI18n();
  const networks = Object.keys(assets);
  const initial = values?.network && networks.includes(values.network) ? values.network : networks[0];
  const [network, setNetwork] = useState(initial);
  // Uncontrolled, with the pick as its default: React resets the form after each answer, and a reset
  // puts an uncontrolled <select> back on its default (a controlled one went to its first option, and
  // whether the remount below came before or after the reset decided what the merchant saw).
  const available = assets[network] ?? [];
  const firstAsset = values?.asset && available.includes(values.asset) ? values.asset : available[0];
  const [picked, setPicked] = useState<string | undefined>();
  const asset = picked && available.includes(picked) ? picked : firstAsset;
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <Select
        label={t("newOrder.network")}
        name="network"
        defaultValue={initial}
        onChange={(e) => {
          setNetwork(e.target.value);
          // The token picker remounts on its new network's default; the minimum follows it.
          setPicked(undefined);
        }}
        options={networks.map((n) => ({ value: n, label: networkName(n) }))}
        errors={errors?.network}
      />
      <Select
        key={network}
        label={t("newOrder.asset")}
        name="asset"
        defaultValue={firstAsset}
        onChange={(e) => setPicked(e.target.value)}
        options={available.map((a) => ({ value: a, label: a }))}
        errors={errors?.asset}
      />
      {setup ? <CryptoPixMinimum network={network} asset={asset} setup={setup} /> : null}
    </div>
  );
}

/** One form per kind of order; all post to server actions validated by the API's own schemas. */
export function NewOrderForm({
  kind,
  kinds,
  setup,
}: {
  kind: NewOrderKind;
  kinds: readonly NewOrderKind[];
  setup: NewOrderSetup;
}) {
  const { t, tp, locale } = useI18n();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(ACTIONS[kind], idle);
  // The pickers are remounted on each answer, so they start from the values the answer echoes (the
  // error may name that network) and a reset of the form puts them back on those.
  const [answers, setAnswers] = useState(0);
  useEffect(() => setAnswers((n) => n + 1), [state]);
  const errors = state.status === "error" ? state.fieldErrors : undefined;
  const values = state.status === "error" ? state.values : undefined;
  const expiry = kind === "pix" ? null : setup.expirySeconds[kind];
  // The split's summary works on the value as typed.
  const [orderValue, setOrderValue] = useState(values?.value ?? "");
  // Every asset the pickers offer has its rate in the box (BUSD included where it is offered).
  const offered = (assets: Record<string, string[]>) => [...new Set(Object.values(assets).flat())];
  const rateLines = (
    kind === "lightning"
      ? ["BTC"]
      : kind === "onchain"
        ? offered(setup.depositAssets)
        : kind === "crypto_pix"
          ? offered(setup.cryptoPixAssets)
          : []
  )
    .filter((a) => setup.rates[a] !== undefined)
    .map((a) => t("order.rateValue", { asset: a, rate: formatRate(setup.rates[a], locale) }));
  return (
    <div className="space-y-4">
      <nav aria-label={t("newOrder.kindLabel")}>
        <ul className="flex flex-wrap gap-2">
          {kinds.map((k) => (
            <li key={k}>
              <Link
                href={`/dashboard/orders/new?kind=${k}`}
                aria-current={k === kind ? "page" : undefined}
                className={cn(
                  "inline-flex rounded-full border px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-brand-700",
                  k === kind
                    ? "border-brand-700 bg-brand-700 text-white"
                    : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
                )}
              >
                {t(`kind.${k}`)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Card>
        <h2 className="text-base font-semibold text-slate-900">{t(`kind.${kind}`)}</h2>
        <p className="mb-4 mt-1 text-sm text-slate-600">{t(`newOrder.help.${kind}`)}</p>
        <form action={action} className="space-y-4" noValidate key={kind}>
          <FormMessage error={state.status === "error" ? state.error : undefined} />
          {kind === "crypto_pix" ? (
            <>
              <Textarea
                label={t("newOrder.qrcode")}
                name="qrcode"
                rows={4}
                required
                hint={t("newOrder.qrcodeHint")}
                defaultValue={values?.qrcode}
                errors={errors?.qrcode}
              />
              <NetworkAssetPickers
                key={answers}
                assets={setup.cryptoPixAssets}
                values={values}
                errors={errors}
                setup={setup}
              />
              <Input
                label={t("newOrder.valueOptional")}
                name="value"
                inputMode="decimal"
                optional
                defaultValue={values?.value}
                errors={errors?.value}
              />
              <Input
                label={t("newOrder.refundAddress")}
                name="refundAddress"
                optional
                spellCheck={false}
                defaultValue={values?.refundAddress}
                errors={errors?.refundAddress}
              />
            </>
          ) : (
            <Input
              label={t("newOrder.value")}
              name="value"
              inputMode="decimal"
              required
              hint={t("newOrder.valueHint")}
              defaultValue={values?.value}
              onChange={(e) => setOrderValue(e.target.value)}
              errors={errors?.value}
            />
          )}
          {kind === "pix" ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <Input
                label={t("newOrder.orderId")}
                name="orderId"
                optional
                defaultValue={values?.orderId}
                errors={errors?.orderId}
              />
              <Input
                label={t("newOrder.customerName")}
                name="name"
                optional
                defaultValue={values?.name}
                errors={errors?.name}
              />
              <Input
                label={t("newOrder.description")}
                name="description"
                optional
                defaultValue={values?.description}
                errors={errors?.description}
              />
              <Select
                label={t("newOrder.expiresIn")}
                name="expiresIn"
                defaultValue={values?.expiresIn ?? ""}
                errors={errors?.expiresIn}
                options={[
                  { value: "", label: t("newOrder.noExpiry") },
                  { value: "900", label: tp("newOrder.minutes", 15) },
                  { value: "3600", label: tp("newOrder.hours", 1) },
                  { value: "86400", label: tp("newOrder.hours", 24) },
                ]}
              />
            </div>
          ) : null}
          {kind === "exchange" ? (
            <Input
              label={t("newOrder.payerId")}
              name="payerId"
              optional
              defaultValue={values?.payerId}
              errors={errors?.payerId}
            />
          ) : null}
          {kind === "lightning" ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <Input
                label={t("newOrder.email")}
                name="email"
                type="email"
                optional
                defaultValue={values?.email}
                errors={errors?.email}
              />
              <Input
                label={t("newOrder.customerName")}
                name="name"
                optional
                defaultValue={values?.name}
                errors={errors?.name}
              />
            </div>
          ) : null}
          {kind === "onchain" ? (
            <NetworkAssetPickers key={answers} assets={setup.depositAssets} values={values} errors={errors} />
          ) : null}
          {kind !== "crypto_pix" ? (
            <SplitParts
              // Its own key: a sibling sharing the pickers' key makes React duplicate them on re-render.
              key={`split-${answers}`}
              recipients={setup.recipients}
              orderValue={orderValue}
              values={values}
              errors={errors}
            />
          ) : null}
          {rateLines.length > 0 || expiry ? (
            <div className="rounded-lg bg-slate-50 px-3 py-2 text-xs text-slate-700">
              {rateLines.length > 0 ? (
                <>
                  <p>{t("newOrder.rates")}:</p>
                  <ul className="flex flex-wrap gap-x-4 font-medium">
                    {rateLines.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                </>
              ) : null}
              {expiry ? <p>{t("newOrder.expiryNote", { time: formatSpan(expiry) })}</p> : null}
            </div>
          ) : null}
          <SubmitButton pendingLabel={t("newOrder.submitting")}>{t("newOrder.submit")}</SubmitButton>
        </form>
      </Card>
    </div>
  );
}
