/** Text whose `backticked` parts are code (field names, literals, headers, paths), as Markdown would show them; long ones wrap on a phone. */
export function Backticked({ children }: { children: string }) {
  return (
    <>
      {children.split(/`([^`]+)`/).map((part, i) =>
        i % 2 ? (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.85em] [overflow-wrap:anywhere]">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}
