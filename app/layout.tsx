import type { Metadata, Viewport } from "next";
import { getLocale } from "@/lib/i18n/server";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "PixCrypto Pagamentos", template: "%s · PixCrypto" },
  description: "Receba em PIX, Lightning e stablecoins; saque em PIX ou on-chain. Payments for Brazilian merchants.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const locale = await getLocale();
  return (
    <html lang={locale}>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <Providers locale={locale}>{children}</Providers>
      </body>
    </html>
  );
}
