"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

const ITEMS: { href: string; label: MessageKey; icon: string }[] = [
  { href: "/dashboard", label: "nav.overview", icon: "M3 12l9-8 9 8M5 10v10h14V10" },
  { href: "/dashboard/orders", label: "nav.orders", icon: "M4 6h16M4 12h16M4 18h10" },
  { href: "/dashboard/orders/new", label: "nav.newOrder", icon: "M12 5v14M5 12h14" },
  { href: "/dashboard/statement", label: "nav.statement", icon: "M6 3h9l3 3v15H6zM9 9h6M9 13h6M9 17h4" },
  { href: "/dashboard/withdrawals", label: "nav.withdrawals", icon: "M12 3v12m0 0l-4-4m4 4l4-4M4 21h16" },
  { href: "/dashboard/developers", label: "nav.developers", icon: "M8 9l-4 3 4 3M16 9l4 3-4 3M14 5l-4 14" },
  { href: "/dashboard/settings", label: "nav.settings", icon: "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM4 12h2m12 0h2M12 4v2m0 12v2" },
  { href: "/dashboard/security", label: "nav.security", icon: "M12 3l7 3v5c0 5-3.5 8.5-7 10-3.5-1.5-7-5-7-10V6l7-3z" },
  { href: "/dashboard/team", label: "nav.team", icon: "M16 19v-1a4 4 0 0 0-8 0v1M12 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6z" },
  { href: "/dashboard/audit", label: "nav.audit", icon: "M9 5h6M9 9h6M9 13h4M6 3h12v18H6z" },
  { href: "/dashboard/outbox", label: "nav.outbox", icon: "M4 6h16v12H4zM4 6l8 7 8-7" },
];

function isActive(pathname: string, href: string) {
  if (href === "/dashboard") return pathname === "/dashboard";
  if (href === "/dashboard/orders") return pathname.startsWith("/dashboard/orders") && !pathname.startsWith("/dashboard/orders/new");
  return pathname.startsWith(href);
}

/** Sidebar on desktop, a scrollable row of tabs on phones; `hidden` are the pages this user's role cannot open. */
export function DashboardNav({ hidden = [] }: { hidden?: string[] }) {
  const { t } = useI18n();
  const pathname = usePathname();
  return (
    <nav aria-label={t("nav.main")}>
      <ul className="flex gap-1 overflow-x-auto pb-1 lg:flex-col lg:overflow-visible lg:pb-0">
        {ITEMS.filter((item) => !hidden.includes(item.href)).map((item) => {
          const active = isActive(pathname, item.href);
          return (
            <li key={item.href} className="shrink-0">
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={cn(
                  "flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-brand-700",
                  active ? "bg-brand-50 text-brand-900" : "text-slate-700 hover:bg-slate-100",
                )}
              >
                <svg
                  aria-hidden="true"
                  viewBox="0 0 24 24"
                  className="size-4 shrink-0"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                >
                  <path d={item.icon} />
                </svg>
                {t(item.label)}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
