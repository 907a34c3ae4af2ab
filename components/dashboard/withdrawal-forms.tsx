"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useActionState, useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { DefinitionList } from "@/components/ui/card";
import { FormMessage, Input, Select } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import { idle, type ActionState } from "@/lib/forms/action-state";
import { onchainWithdrawAction, peekDestinationAction, pixOutAction } from "@/lib/dashboard/actions/withdrawals";
import type { DestinationPeek } from "@/lib/withdrawals/peek";
import { DestinationNotice } from "./destination-notice";
import { previewWithdrawal, type Preview, type PreviewLimits } from "@/lib/dashboard/withdrawal-preview";
import type { WithdrawalQuotes, WithdrawNetwork } from "@/lib/dashboard/server/withdrawals";
import { networkName } from "@/lib/chain/network-names";
import { useI18n } from "@/lib/i18n/client";
import { issueMessage, type ZodIssue } from "@/lib/i18n/zod";
import { withdrawalAddress } from "@/lib/withdrawals/destination";
import { readKeyEntry } from "@/lib/dashboard/pix-key-input";
import type { PixKeyType } from "@/lib/pix/keys";
import { PixKeyField } from "./pix-key-field";
import type { Locale } from "@/lib/i18n";
import { StepUpField } from "@/components/security/step-up";

// The field the step-up code travels in (lib/dashboard/server/merchant-action.ts, a server-only module).
const STEP_UP_FIELD_NAME = "otp";

// Two steps: fill in, then review the breakdown and limits and confirm. The destination is checked
// before the review: an address with the schema the API and the server action use
// (lib/withdrawals/destination, its EIP-55 checksum), a PIX key read as the kind the merchant chose
// (lib/dashboard/pix-key-input.ts), and sent normalised. Only the confirm step posts to the server
// action, which checks everything again under the merchant's row lock.

/** The destination's problems in the visitor's language, or undefined when the schema accepts it. */
function destinationErrors(
  schema: typeof withdrawalAddress,
  value: string,
  label: string,
  locale: Locale,
): string[] | undefined {
  const parsed = schema.safeParse(value, { reportInput: true });
  return parsed.success
    ? undefined
    : parsed.error.issues.map((issue) => issueMessage(issue as ZodIssue, locale, label));
}

/**
 * A server action's answer on the review step, where the fields are hidden: every message it carries,
 * but the step-up code's, which its own field shows.
 */
function reviewError(state: ActionState<{ id: string }>): string | undefined {
  if (state.status !== "error") return undefined;
  const fields = Object.entries(state.fieldErrors ?? {})
    .filter(([field]) => field !== STEP_UP_FIELD_NAME)
    .flatMap(([, messages]) => messages);
  return fields.length > 0 ? fields.join(" ") : state.error;
}

/**
 * On the review step: whether the destination is new or held, asked of the server once per review
 * (no code: it moves nothing), so the merchant reads what will happen before giving the code.
 */
function useDestinationPeek(
  kind: "pix_key" | "chain_address",
  value: string,
  reviewing: boolean,
): DestinationPeek | null {
  const [peek, setPeek] = useState<DestinationPeek | null>(null);
  useEffect(() => {
    setPeek(null);
    if (!reviewing) return;
    let current = true;
    const fd = new FormData();
    fd.set("kind", kind);
    fd.set("value", value);
    void peekDestinationAction(idle, fd).then((s) => {
      if (current && s.status === "success") setPeek(s.data as DestinationPeek);
    });
    return () => {
      current = false;
    };
  }, [kind, value, reviewing]);
  return peek;
}

/** The on-chain breakdown: the 0.5% service fee and the network fee on top of the value (lib/money/fees). */
function Breakdown({
  preview,
  destination,
  tokenLabel,
}: {
  preview: Preview;
  destination: string;
  tokenLabel: string;
}) {
  const { t, money, crypto } = useI18n();
  return (
    <DefinitionList
      items={[
        {
          label: t("withdrawals.destination"),
          value: <span className="break-all font-mono text-xs">{destination}</span>,
        },
        { label: t("withdrawals.amount"), value: money(preview.valueCentavos) },
        { label: t("withdrawals.serviceFee"), value: money(preview.serviceFeeCentavos) },
        { label: t("withdrawals.networkFee"), value: money(preview.networkFeeCentavos) },
        {
          label: t("withdrawals.totalDebit"),
          value: <strong data-testid="withdrawal-total">{money(preview.debitCentavos)}</strong>,
        },
        ...(preview.tokens
          ? [{ label: t("withdrawals.tokensSent"), value: `${crypto(preview.tokens)} ${tokenLabel}` }]
          : []),
      ]}
    />
  );
}

/**
 * The PIX-out review: where it goes (the key's kind and the key as it will be sent), who receives it
 * as far as can be known before sending, and the debit. A PIX-out has no fee (the service debits the
 * value alone: lib/withdrawals/service.ts createPixOut), so the fee line says so rather than a rate.
 */
function PixBreakdown({
  preview,
  keyType,
  keyShown,
}: {
  preview: Preview;
  keyType: PixKeyType | null;
  keyShown: string;
}) {
  const { t, money } = useI18n();
  return (
    <>
      <DefinitionList
        items={[
          ...(keyType ? [{ label: t("withdrawals.reviewKeyType"), value: t(`withdrawals.keyType.${keyType}`) }] : []),
          {
            label: t("withdrawals.reviewKey"),
            value: (
              <span className="break-all font-mono text-xs" data-testid="review-pix-key">
                {keyShown}
              </span>
            ),
          },
          {
            label: t("withdrawals.recipient"),
            value: <span data-testid="review-recipient">{t("withdrawals.recipientNotLooked")}</span>,
          },
          { label: t("withdrawals.amount"), value: money(preview.valueCentavos) },
          {
            label: t("withdrawals.pixFee"),
            value: <span data-testid="review-fee">{t("withdrawals.pixFeeFree")}</span>,
          },
          {
            label: t("withdrawals.totalDebit"),
            value: <strong data-testid="withdrawal-total">{money(preview.debitCentavos)}</strong>,
          },
        ]}
      />
      <p className="text-xs text-slate-600">{t("withdrawals.recipientNote")}</p>
    </>
  );
}

function Problems({ preview }: { preview: Preview }) {
  const { t } = useI18n();
  if (preview.problems.length === 0) return null;
  return (
    <ul
      role="alert"
      className="space-y-1 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
    >
      {preview.problems.map((p) => (
        <li key={p.key}>{t(p.key, p.vars)}</li>
      ))}
    </ul>
  );
}

function useAfterSuccess(state: ActionState<{ id: string }>, reset: () => void) {
  const client = useQueryClient();
  useEffect(() => {
    if (state.status === "success") {
      reset();
      void client.invalidateQueries({ queryKey: ["dashboard"] });
    }
    // Runs once per answer: `at` changes with every successful submission.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.status === "success" ? state.at : 0]);
}

export function PixOutForm({ quotes, limits }: { quotes: WithdrawalQuotes; limits: PreviewLimits }) {
  const { t, money } = useI18n();
  const [keyErrors, setKeyErrors] = useState<string[] | undefined>();
  const [value, setValue] = useState("");
  const [choice, setChoice] = useState<"registered" | "other">(quotes.registeredKey ? "registered" : "other");
  const [keyType, setKeyType] = useState<PixKeyType | null>(null);
  const [pixKey, setPixKey] = useState("");
  const [review, setReview] = useState<Preview | null>(null);
  const [invalid, setInvalid] = useState(false);
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(pixOutAction, idle);
  useAfterSuccess(state, () => {
    setReview(null);
    setValue("");
    setPixKey("");
  });
  const entry = readKeyEntry(keyType, pixKey);
  const peek = useDestinationPeek("pix_key", choice === "other" && entry.ok ? entry.normalized : "", review !== null);
  const keyProblem = () => (entry.ok ? undefined : [t(entry.message, { label: t("withdrawals.pixKey") })]);

  function onReview(e: React.FormEvent) {
    e.preventDefault();
    const preview = previewWithdrawal({ kind: "pix_out", value }, limits, money);
    const badKey = choice === "other" ? keyProblem() : undefined;
    setInvalid(preview === null);
    setKeyErrors(badKey);
    setReview(badKey ? null : preview);
  }

  if (review) {
    const other = choice === "other" && entry.ok;
    return (
      <form action={action} className="space-y-4">
        <h3 className="text-base font-semibold text-slate-900">{t("withdrawals.confirmTitle")}</h3>
        <input type="hidden" name="value" value={value} />
        {other ? <input type="hidden" name="pixKey" value={entry.normalized} /> : null}
        <PixBreakdown
          preview={review}
          keyType={other ? entry.type : null}
          keyShown={other ? entry.normalized : t("withdrawals.registeredKey", { key: quotes.registeredKey ?? "" })}
        />
        <Problems preview={review} />
        {peek ? <DestinationNotice peek={peek} /> : null}
        <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
        <FormMessage error={reviewError(state)} />
        <ReviewActions blocked={review.problems.length > 0} onBack={() => setReview(null)} />
      </form>
    );
  }
  return (
    <form onSubmit={onReview} className="space-y-4" noValidate>
      <FormMessage success={state.status === "success" ? state.message : undefined} />
      <Input
        label={t("withdrawals.value")}
        name="value"
        inputMode="decimal"
        required
        value={value}
        onChange={(e) => setValue(e.target.value)}
        errors={invalid ? ["errors.amount"] : undefined}
      />
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-slate-800">{t("withdrawals.keyChoice")}</legend>
        {quotes.registeredKey ? (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="keyChoice"
              value="registered"
              checked={choice === "registered"}
              onChange={() => setChoice("registered")}
              className="size-4 accent-brand-700"
            />
            {t("withdrawals.registeredKey", { key: quotes.registeredKey })}
          </label>
        ) : (
          <p className="text-sm text-slate-600">{t("withdrawals.noRegisteredKey")}</p>
        )}
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name="keyChoice"
            value="other"
            checked={choice === "other"}
            onChange={() => setChoice("other")}
            className="size-4 accent-brand-700"
          />
          {t("withdrawals.otherKey")}
        </label>
      </fieldset>
      {choice === "other" ? (
        <PixKeyField
          type={keyType}
          value={pixKey}
          errors={keyErrors}
          onType={(type) => {
            setKeyType(type);
            setKeyErrors(undefined);
          }}
          onValue={(v) => {
            setPixKey(v);
            setKeyErrors(undefined);
          }}
          onBlur={() => setKeyErrors(pixKey.trim() ? keyProblem() : undefined)}
        />
      ) : null}
      <Button type="submit">{t("withdrawals.review")}</Button>
    </form>
  );
}

export function OnchainForm({ quotes, limits }: { quotes: WithdrawalQuotes; limits: PreviewLimits }) {
  const { t, money, locale } = useI18n();
  const [addressErrors, setAddressErrors] = useState<string[] | undefined>();
  const [network, setNetwork] = useState<WithdrawNetwork>(
    quotes.networks.includes("polygon") ? "polygon" : quotes.networks[0],
  );
  const [token, setToken] = useState("USDT");
  const [toAddress, setToAddress] = useState("");
  const [value, setValue] = useState("");
  const [review, setReview] = useState<Preview | null>(null);
  const [invalid, setInvalid] = useState(false);
  const [state, action] = useActionState<ActionState<{ id: string }>, FormData>(onchainWithdrawAction, idle);
  useAfterSuccess(state, () => {
    setReview(null);
    setValue("");
  });
  const peek = useDestinationPeek("chain_address", toAddress.trim(), review !== null);
  const tokens = quotes.tokens[network];
  const currentToken = tokens.includes(token as never) ? token : tokens[0];
  const preview = (v: string) =>
    previewWithdrawal(
      {
        kind: "onchain",
        value: v,
        networkFeeCentavos: quotes.networkFees[network],
        rate: quotes.rates[currentToken as keyof typeof quotes.rates],
        decimals: quotes.decimals[network][currentToken as keyof typeof quotes.rates],
      },
      limits,
      money,
    );
  const live = preview(value);

  function onReview(e: React.FormEvent) {
    e.preventDefault();
    const p = preview(value);
    const badAddress = destinationErrors(withdrawalAddress, toAddress, t("withdrawals.toAddress"), locale);
    setInvalid(p === null);
    setAddressErrors(badAddress);
    setReview(badAddress ? null : p);
  }

  if (review) {
    return (
      <form action={action} className="space-y-4">
        <h3 className="text-base font-semibold text-slate-900">{t("withdrawals.confirmTitle")}</h3>
        <input type="hidden" name="value" value={value} />
        <input type="hidden" name="toAddress" value={toAddress} />
        <input type="hidden" name="network" value={network} />
        <input type="hidden" name="token" value={currentToken} />
        <Breakdown preview={review} destination={`${toAddress} (${networkName(network)})`} tokenLabel={currentToken} />
        <Problems preview={review} />
        {peek ? <DestinationNotice peek={peek} /> : null}
        <StepUpField errors={state.status === "error" ? state.fieldErrors?.otp : undefined} />
        <FormMessage error={reviewError(state)} />
        <ReviewActions blocked={review.problems.length > 0} onBack={() => setReview(null)} />
      </form>
    );
  }
  return (
    <form onSubmit={onReview} className="space-y-4" noValidate>
      <FormMessage success={state.status === "success" ? state.message : undefined} />
      <Input
        label={t("withdrawals.toAddress")}
        name="toAddress"
        required
        spellCheck={false}
        autoComplete="off"
        value={toAddress}
        onChange={(e) => {
          setToAddress(e.target.value);
          setAddressErrors(undefined);
        }}
        onBlur={() =>
          setAddressErrors(
            toAddress.trim()
              ? destinationErrors(withdrawalAddress, toAddress, t("withdrawals.toAddress"), locale)
              : undefined,
          )
        }
        errors={addressErrors}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Select
          label={t("withdrawals.network")}
          name="network"
          value={network}
          onChange={(e) => setNetwork(e.target.value as WithdrawNetwork)}
          options={quotes.networks.map((n) => ({ value: n, label: networkName(n) }))}
        />
        <Select
          label={t("withdrawals.token")}
          name="token"
          value={currentToken}
          onChange={(e) => setToken(e.target.value)}
          options={tokens.map((a) => ({ value: a, label: a }))}
        />
      </div>
      <Input
        label={t("withdrawals.value")}
        name="value"
        inputMode="decimal"
        required
        value={value}
        onChange={(e) => setValue(e.target.value)}
        errors={invalid ? ["errors.amount"] : undefined}
      />
      {live ? (
        <div className="rounded-lg bg-slate-50 px-3 py-1" aria-live="polite">
          <p className="pt-2 text-xs font-semibold uppercase tracking-wide text-slate-600">
            {t("withdrawals.breakdown")}
          </p>
          <DefinitionList
            items={[
              { label: t("withdrawals.serviceFee"), value: money(live.serviceFeeCentavos) },
              { label: t("withdrawals.networkFee"), value: money(live.networkFeeCentavos) },
              { label: t("withdrawals.totalDebit"), value: money(live.debitCentavos) },
            ]}
          />
        </div>
      ) : null}
      <Button type="submit">{t("withdrawals.review")}</Button>
    </form>
  );
}

/** Confirm or go back from a withdrawal's review step; confirming is blocked while the review shows a problem. */
function ReviewActions({ blocked, onBack }: { blocked: boolean; onBack: () => void }) {
  const { t } = useI18n();
  return (
    <div className="flex flex-wrap gap-2">
      <SubmitButton pendingLabel={t("withdrawals.confirming")} disabled={blocked}>
        {t("withdrawals.confirm")}
      </SubmitButton>
      <Button variant="secondary" onClick={onBack}>
        {t("common.back")}
      </Button>
    </div>
  );
}
