"use client";

import { QRCodeSVG } from "qrcode.react";

/** The QR a payer scans. Quiet zone included so phone cameras lock on. */
export function QrCode({ value, label, size = 224 }: { value: string; label: string; size?: number }) {
  return (
    <div className="inline-block rounded-xl border border-slate-200 bg-white p-3">
      <QRCodeSVG value={value} size={size} level="M" marginSize={2} role="img" aria-label={label} title={label} />
    </div>
  );
}
