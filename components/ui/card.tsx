import { cn } from "./cn";

export function Card({ className, ...props }: React.HTMLAttributes<HTMLElement>) {
  return (
    <section {...props} className={cn("rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6", className)} />
  );
}

export function CardTitle({
  className,
  as: Tag = "h2",
  ...props
}: React.HTMLAttributes<HTMLHeadingElement> & { as?: "h2" | "h3" }) {
  return <Tag {...props} className={cn("text-base font-semibold text-slate-900", className)} />;
}

export function PageHeader({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
      <h1 className="min-w-0 break-words text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
      {children ? <div className="flex flex-wrap gap-2">{children}</div> : null}
    </div>
  );
}

/** A designed empty state: what is missing and what to do about it. */
export function EmptyState({ title, body, action }: { title: string; body?: string; action?: React.ReactNode }) {
  return (
    <div className="flex flex-col items-center rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center">
      <svg
        aria-hidden="true"
        viewBox="0 0 24 24"
        className="mb-3 size-10 text-slate-400"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.5"
      >
        <path d="M3 7h18M3 12h18M3 17h10" strokeLinecap="round" />
      </svg>
      <p className="font-medium text-slate-800">{title}</p>
      {body ? <p className="mt-1 max-w-sm text-sm text-slate-600">{body}</p> : null}
      {action ? <div className="mt-4">{action}</div> : null}
    </div>
  );
}

export function Alert({
  tone = "error",
  children,
  className,
}: {
  tone?: "error" | "success" | "info" | "warning";
  children: React.ReactNode;
  className?: string;
}) {
  const tones = {
    error: "border-red-200 bg-red-50 text-red-800",
    success: "border-brand-100 bg-brand-50 text-brand-900",
    info: "border-sky-200 bg-sky-50 text-sky-900",
    warning: "border-amber-200 bg-amber-50 text-amber-900",
  };
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      className={cn("rounded-lg border px-4 py-3 text-sm", tones[tone], className)}
    >
      {children}
    </div>
  );
}

/** Label/value pairs. */
export function DefinitionList({ items }: { items: { label: string; value: React.ReactNode }[] }) {
  return (
    <dl className="divide-y divide-slate-100">
      {items.map((item, i) => (
        <div key={i} className="grid gap-1 py-2 sm:grid-cols-3 sm:gap-4">
          <dt className="text-sm text-slate-600">{item.label}</dt>
          <dd className="min-w-0 break-words text-sm text-slate-900 sm:col-span-2">{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn("animate-pulse rounded-md bg-slate-200", className)} />;
}
