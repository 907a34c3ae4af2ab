"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn";
import type { MessageKey } from "@/lib/i18n";
import { useI18n } from "@/lib/i18n/client";

const ITEMS: { href: string; label: MessageKey; icon: string }[] = [
  { href: "/dashboard", label: "nav.overview", icon: "M3 12l9-8 9 8M5 10v10h14V10" },
  { href: "/dashboard/orders", label: "nav.orders", icon: "M4 6h16M4 12h16M4 18h10" },
  { href: "/dashboard/orders/new", label: "nav.newOrder", icon: "M12 5v14M5 12h14" },
  {
    href: "/dashboard/invoices",
    label: "nav.invoices",
    icon: "M7 3h10v18l-2.5-1.5L12 21l-2.5-1.5L7 21zM10 8h4M10 12h4",
  },
  {
    href: "/dashboard/subscriptions",
    label: "nav.subscriptions",
    icon: "M4 12a8 8 0 0 1 14-5.3M20 12a8 8 0 0 1-14 5.3M18 3v4h-4M6 21v-4h4",
  },
  {
    href: "/dashboard/payment-links",
    label: "nav.paymentLinks",
    icon: "M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1",
  },
  {
    href: "/dashboard/recipients",
    label: "nav.recipients",
    icon: "M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3 20v-1a5 5 0 0 1 10 0v1M16 11a3 3 0 1 0 0-6M21 20v-1a5 5 0 0 0-4-4.9",
  },
  { href: "/dashboard/statement", label: "nav.statement", icon: "M6 3h9l3 3v15H6zM9 9h6M9 13h6M9 17h4" },
  { href: "/dashboard/withdrawals", label: "nav.withdrawals", icon: "M12 3v12m0 0l-4-4m4 4l4-4M4 21h16" },
  { href: "/dashboard/disputes", label: "nav.disputes", icon: "M12 3l9 16H3zM12 10v4M12 17v.01" },
  { href: "/dashboard/developers", label: "nav.developers", icon: "M8 9l-4 3 4 3M16 9l4 3-4 3M14 5l-4 14" },
  {
    href: "/dashboard/settings",
    label: "nav.settings",
    icon: "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM4 12h2m12 0h2M12 4v2m0 12v2",
  },
  { href: "/dashboard/security", label: "nav.security", icon: "M12 3l7 3v5c0 5-3.5 8.5-7 10-3.5-1.5-7-5-7-10V6l7-3z" },
  { href: "/dashboard/team", label: "nav.team", icon: "M16 19v-1a4 4 0 0 0-8 0v1M12 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6z" },
  { href: "/dashboard/audit", label: "nav.audit", icon: "M9 5h6M9 9h6M9 13h4M6 3h12v18H6z" },
  { href: "/dashboard/outbox", label: "nav.outbox", icon: "M4 6h16v12H4zM4 6l8 7 8-7" },
];

function isActive(pathname: string, href: string) {
  if (href === "/dashboard") return pathname === "/dashboard";
  if (href === "/dashboard/orders")
    return pathname.startsWith("/dashboard/orders") && !pathname.startsWith("/dashboard/orders/new");
  return pathname.startsWith(href);
}

/**
 * Which ends of the phone's tab row have more tabs past the edge, kept up to date as it scrolls or
 * resizes; the current tab is scrolled into view so it is never the one cut off.
 */
function useOverflow(pathname: string) {
  const ref = useRef<HTMLUListElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () =>
      setMore({ left: el.scrollLeft > 4, right: el.scrollLeft + el.clientWidth < el.scrollWidth - 4 });
    el.querySelector<HTMLElement>("[aria-current=page]")?.scrollIntoView({ block: "nearest", inline: "center" });
    update();
    el.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    return () => {
      el.removeEventListener("scroll", update);
      window.removeEventListener("resize", update);
    };
  }, [pathname]);
  return { ref, more };
}

const FADE = "absolute inset-y-0 flex w-10 items-center from-white via-white/90 to-transparent lg:hidden";

/**
 * Sidebar on desktop; on phones a row of tabs that scrolls, with a fade and an arrow where more tabs are.
 * `hidden` are the pages this user's role cannot open.
 */
export function DashboardNav({ hidden = [] }: { hidden?: string[] }) {
  const { t } = useI18n();
  const pathname = usePathname();
  const { ref, more } = useOverflow(pathname);
  return (
    <nav aria-label={t("nav.main")} className="relative">
      {more.left ? (
        <span aria-hidden="true" className={cn(FADE, "pointer-events-none left-0 justify-start bg-gradient-to-r")} />
      ) : null}
      {more.right ? (
        <button
          type="button"
          aria-label={t("nav.more")}
          title={t("nav.more")}
          data-testid="nav-more"
          onClick={() => ref.current?.scrollBy({ left: ref.current.clientWidth * 0.6, behavior: "smooth" })}
          className={cn(FADE, "right-0 justify-end bg-gradient-to-l pr-0.5 text-slate-700")}
        >
          <svg
            aria-hidden="true"
            viewBox="0 0 24 24"
            className="size-5"
            fill="none"
            stroke="currentColor"
            strokeWidth="2.5"
            strokeLinecap="round"
            strokeLinejoin="round"
          >
            <path d="M9 6l6 6-6 6" />
          </svg>
        </button>
      ) : null}
      <ul
        ref={ref}
        className="flex gap-1 overflow-x-auto pb-1 [scrollbar-width:thin] lg:flex-col lg:overflow-visible lg:pb-0"
      >
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
