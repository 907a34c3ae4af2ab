import Link from "next/link";

export function Logo({ href = "/", label }: { href?: string; label: string }) {
  return (
    <Link
      href={href}
      className="inline-flex items-center gap-2 rounded-md font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-700"
    >
      <span aria-hidden="true" className="grid size-8 place-items-center rounded-lg bg-brand-700 text-sm text-white">
        P
      </span>
      <span>{label}</span>
    </Link>
  );
}
