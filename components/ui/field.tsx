"use client";

import { useId } from "react";
import { useI18n } from "@/lib/i18n/client";
import { cn } from "./cn";

// Form controls with their label, hint and errors wired for assistive technology. Errors may be
// catalog keys (dashboard schemas) or API wording; both are shown.

const control =
  "block w-full rounded-lg border bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-brand-700 focus:outline-2 focus:outline-offset-0 focus:outline-brand-700";

type FieldProps = { label: string; hint?: string; errors?: string[]; optional?: boolean; className?: string };

function useField(errors?: string[]) {
  const id = useId();
  const { message } = useI18n();
  const invalid = Boolean(errors?.length);
  return { id, hintId: `${id}-hint`, errorId: `${id}-error`, invalid, messages: errors?.map(message) ?? [] };
}

function Frame({
  id,
  label,
  hint,
  hintId,
  errorId,
  messages,
  optional,
  className,
  children,
}: FieldProps & { id: string; hintId: string; errorId: string; messages: string[]; children: React.ReactNode }) {
  const { t } = useI18n();
  return (
    <div className={cn("space-y-1", className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
        {optional ? <span className="font-normal text-slate-600"> ({t("common.optional")})</span> : null}
      </label>
      {children}
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      {messages.length > 0 ? (
        <p id={errorId} className="text-xs font-medium text-red-700">
          {messages.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

function describedBy(f: { hintId: string; errorId: string; invalid: boolean }, hint?: string) {
  return [hint ? f.hintId : null, f.invalid ? f.errorId : null].filter(Boolean).join(" ") || undefined;
}

export function Input({
  label,
  hint,
  errors,
  optional,
  className,
  ...props
}: FieldProps & React.InputHTMLAttributes<HTMLInputElement>) {
  const f = useField(errors);
  return (
    <Frame
      id={f.id}
      label={label}
      hint={hint}
      hintId={f.hintId}
      errorId={f.errorId}
      messages={f.messages}
      optional={optional}
      className={className}
    >
      <input
        id={f.id}
        {...props}
        aria-invalid={f.invalid || undefined}
        aria-describedby={describedBy(f, hint)}
        className={cn(control, f.invalid ? "border-red-500" : "border-slate-300")}
      />
    </Frame>
  );
}

export function Textarea({
  label,
  hint,
  errors,
  optional,
  className,
  ...props
}: FieldProps & React.TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const f = useField(errors);
  return (
    <Frame
      id={f.id}
      label={label}
      hint={hint}
      hintId={f.hintId}
      errorId={f.errorId}
      messages={f.messages}
      optional={optional}
      className={className}
    >
      <textarea
        id={f.id}
        {...props}
        aria-invalid={f.invalid || undefined}
        aria-describedby={describedBy(f, hint)}
        className={cn(control, "font-mono text-xs", f.invalid ? "border-red-500" : "border-slate-300")}
      />
    </Frame>
  );
}

export function Select({
  label,
  hint,
  errors,
  optional,
  className,
  options,
  ...props
}: FieldProps & React.SelectHTMLAttributes<HTMLSelectElement> & { options: { value: string; label: string }[] }) {
  const f = useField(errors);
  return (
    <Frame
      id={f.id}
      label={label}
      hint={hint}
      hintId={f.hintId}
      errorId={f.errorId}
      messages={f.messages}
      optional={optional}
      className={className}
    >
      <select
        id={f.id}
        {...props}
        aria-invalid={f.invalid || undefined}
        aria-describedby={describedBy(f, hint)}
        className={cn(control, f.invalid ? "border-red-500" : "border-slate-300")}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Frame>
  );
}

/** A form-level error or success message from useActionState. */
export function FormMessage({ error, success }: { error?: string; success?: string }) {
  const { message } = useI18n();
  if (error) {
    return (
      <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
        {message(error)}
      </p>
    );
  }
  if (success) {
    return (
      <p role="status" className="rounded-lg border border-brand-100 bg-brand-50 px-3 py-2 text-sm text-brand-900">
        {message(success)}
      </p>
    );
  }
  return null;
}
