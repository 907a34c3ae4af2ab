"use client";

import { useI18n } from "@/lib/i18n/client";

/** BRL from centavos in the visitor's locale (R$ 1.234,56). */
export function Money({ centavos, className }: { centavos: number; className?: string }) {
  const { money } = useI18n();
  return <span className={className}>{money(centavos)}</span>;
}

export function DateTime({ at, className }: { at: string; className?: string }) {
  const { dateTime } = useI18n();
  return (
    <time dateTime={at} className={className}>
      {dateTime(at)}
    </time>
  );
}
