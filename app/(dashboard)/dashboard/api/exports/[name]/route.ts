import { currentMerchant } from "@/lib/identity/dashboard/session";
import {
  EXPORT_NAMES,
  exportFileName,
  exportQuery,
  exportStream,
  type ExportName,
} from "@/lib/dashboard/server/exports";
import { isMessageKey } from "@/lib/i18n";
import { getI18n } from "@/lib/i18n/server";

// CSV downloads of the signed-in merchant's statement, orders and withdrawals (docs/dashboard.md,
// "Exports"). The body streams page by page; nothing here holds the whole file.

const noStore = { "cache-control": "no-store" };

export async function GET(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  const { t, locale } = await getI18n();
  const signedIn = await currentMerchant();
  if (!signedIn) return Response.json({ message: t("export.signedOut") }, { status: 401, headers: noStore });
  const { name } = await ctx.params;
  if (!(EXPORT_NAMES as readonly string[]).includes(name))
    return Response.json({ message: t("export.unknown") }, { status: 404, headers: noStore });
  const parsed = exportQuery.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) {
    const key = parsed.error.issues[0]?.message ?? "";
    return Response.json(
      { message: isMessageKey(key) ? t(key) : t("export.invalidDate") },
      { status: 400, headers: noStore },
    );
  }
  const exportName = name as ExportName;
  return new Response(exportStream(exportName, signedIn.merchant.id, parsed.data, t, undefined, locale), {
    headers: {
      ...noStore,
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(exportName, parsed.data, t)}"`,
      "x-content-type-options": "nosniff",
    },
  });
}
