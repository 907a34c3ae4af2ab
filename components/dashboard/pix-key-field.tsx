"use client";

import { Input } from "@/components/ui/field";
import { cn } from "@/components/ui/cn";
import { readKeyEntry } from "@/lib/dashboard/pix-key-input";
import { useI18n } from "@/lib/i18n/client";
import { PIX_KEY_TYPES, type PixKeyType } from "@/lib/pix/keys";

// The kind of key first, then the key, as bank apps ask for it: the kind decides how the key is read
// (an 11-digit celular is not a CPF), which keyboard a phone shows, the example and the help.

const INPUT_MODE: Record<PixKeyType, React.HTMLAttributes<HTMLInputElement>["inputMode"]> = {
  cpf: "numeric",
  cnpj: "text",
  phone: "tel",
  email: "email",
  evp: "text",
};

export function PixKeyField({
  type,
  value,
  errors,
  onType,
  onValue,
  onBlur,
}: {
  type: PixKeyType | null;
  value: string;
  errors?: string[];
  onType: (type: PixKeyType) => void;
  onValue: (value: string) => void;
  onBlur: () => void;
}) {
  const { t } = useI18n();
  const entry = type ? readKeyEntry(type, value) : null;
  // Shown once the key reads as one and differs from what was typed: the +55 added, the dots dropped.
  const asSent = entry?.ok && entry.normalized !== value.trim() ? entry.normalized : null;
  return (
    <div className="space-y-3">
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">{t("withdrawals.keyType")}</legend>
        <div className="mt-1.5 flex flex-wrap gap-2">
          {PIX_KEY_TYPES.map((k) => (
            <label
              key={k}
              className={cn(
                "inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-3 py-1.5 text-sm font-medium",
                type === k
                  ? "border-brand-700 bg-brand-50 text-brand-900"
                  : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
              )}
            >
              <input
                type="radio"
                name="keyType"
                value={k}
                checked={type === k}
                onChange={() => onType(k)}
                className="size-4 accent-brand-700"
              />
              {t(`withdrawals.keyType.${k}`)}
            </label>
          ))}
        </div>
      </fieldset>
      {type ? (
        <div>
          <Input
            key={type}
            label={t("withdrawals.pixKey")}
            name="pixKeyTyped"
            required
            spellCheck={false}
            autoComplete="off"
            autoCapitalize="none"
            inputMode={INPUT_MODE[type]}
            type={type === "email" ? "email" : "text"}
            placeholder={t(`withdrawals.keyPlaceholder.${type}`)}
            value={value}
            onChange={(e) => onValue(e.target.value)}
            onBlur={onBlur}
            hint={t(`withdrawals.keyHint.${type}`)}
            errors={errors}
          />
          {asSent ? (
            <p className="mt-1 text-xs text-slate-700" data-testid="pix-key-as-sent" aria-live="polite">
              {t("withdrawals.keyAsSent", { key: asSent })}
            </p>
          ) : null}
        </div>
      ) : errors ? (
        <p role="alert" className="text-xs font-medium text-red-700">
          {errors.join(" ")}
        </p>
      ) : null}
    </div>
  );
}
