"use client";

import { useState } from "react";
import { useI18n } from "@/lib/i18n/client";
import { buttonClass } from "./button";

/**
 * Copies `value`; the confirmation is announced to screen readers. With `label`, the button says it
 * in words (a page's main action) and that is its accessible name; else "Copiar", named by `what`.
 */
export function CopyButton({
  value,
  what,
  className,
  label,
  variant = "secondary",
  testId,
}: {
  value: string;
  what: string;
  className?: string;
  label?: string;
  variant?: "primary" | "secondary";
  testId?: string;
}) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Clipboard API refused (insecure origin): fall back to a hidden textarea.
      const area = document.createElement("textarea");
      area.value = value;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button
      type="button"
      onClick={copy}
      aria-label={label ? undefined : t("common.copyLabel", { what })}
      data-testid={testId}
      className={buttonClass(variant, className)}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="2">
        <rect x="9" y="9" width="11" height="11" rx="2" />
        <path d="M5 15V5a2 2 0 0 1 2-2h10" />
      </svg>
      <span aria-live="polite">{copied ? t("common.copied") : (label ?? t("common.copy"))}</span>
    </button>
  );
}

/** A long code (BR Code, invoice, address) in a read-only box with its copy button (unless the page has its own). */
export function CopyField({ label, value, button = true }: { label: string; value: string; button?: boolean }) {
  return (
    <div>
      <p className="mb-1 text-sm font-medium text-slate-800">{label}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        {/* Focusable: a long code scrolls, and keyboard users must be able to scroll it. */}
        <code
          tabIndex={0}
          className="block max-h-28 focus-visible:outline-2 focus-visible:outline-brand-700 min-w-0 flex-1 overflow-y-auto break-all rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800"
        >
          {value}
        </code>
        {button ? <CopyButton value={value} what={label} className="shrink-0" /> : null}
      </div>
    </div>
  );
}
