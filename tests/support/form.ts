/** A server action's FormData from plain fields, as the dashboard's forms post it. */
export function form(fields: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}
