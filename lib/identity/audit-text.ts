import { networkName } from "@/lib/chain/network-names";
import {
  formatDateTime,
  formatMoney,
  isMessageKey,
  type Locale,
  type MessageKey,
  type Translator,
  type Vars,
} from "@/lib/i18n";

// The audit trail in words (docs/dashboard.md, /dashboard/audit): each row's action, what it acted on
// and who did it, as a sentence from the catalogs. The rows keep what the services wrote (append-only,
// and what a developer or an operator searches for); this is how a merchant reads them. Values a person
// recognises but that are not wording (e-mails, PIX keys, addresses, URLs, ids) come back apart, as
// `data`, so a page can mark them as such.

/** Who acted when no signed-in user did: the names the services store in audit_events.actor. */
export const API_KEY_ACTOR_PREFIX = "API key ";
export const OWNERS_LINK_ACTOR = "link mailed to the owners";
export const OPERATOR_ACTOR = "operator (cli)";
export const RELEASE_ACTOR = "service (destination released)";

/** An API key as the Developers page shows it: its name, and its prefix and last four characters. */
export type ApiKeyLabel = { name: string; prefix: string; lastFour: string | null };

/** "sk_test_AbCd…wXyZ" (or "sk_test_AbCd…" for a key made before its last four were kept). */
export const apiKeyShown = (k: Pick<ApiKeyLabel, "prefix" | "lastFour">) => `${k.prefix}…${k.lastFour ?? ""}`;

/** The API key's id in an actor, or null when the actor is not an API key. */
export const apiKeyIdOf = (actor: string): string | null =>
  actor.startsWith(API_KEY_ACTOR_PREFIX) ? actor.slice(API_KEY_ACTOR_PREFIX.length) : null;

/**
 * "Chave de API “Loja” (sk_test_AbCd…wXyZ)" for an API key's actor, when `keys` knows it (by id), else
 * "Chave de API <id>"; "um operador" for the operator's; a person's e-mail as it is.
 */
export function actorName(t: Translator, actor: string, keys?: ReadonlyMap<string, ApiKeyLabel>): string {
  const keyId = apiKeyIdOf(actor);
  if (keyId !== null) {
    const key = keys?.get(keyId);
    return key
      ? t("audit.actor.apiKeyNamed", { name: key.name, key: apiKeyShown(key) })
      : t("audit.actor.apiKey", { id: keyId });
  }
  if (actor === OWNERS_LINK_ACTOR) return t("audit.actor.ownersLink");
  if (actor === OPERATOR_ACTOR) return t("audit.actor.operator");
  if (actor === RELEASE_ACTOR) return t("audit.actor.release");
  return actor;
}

/** Whether the actor is a person's e-mail (data) rather than a name from the catalogs. */
export const actorIsData = (actor: string) => actorName((k) => k, actor) === actor;

/** The catalog's words for a code ("finance" → "Financeiro"), the code itself when it has none. */
function words(t: Translator, prefix: string, code: unknown): string {
  const value = String(code ?? "");
  const key = `${prefix}${value}`;
  return isMessageKey(key) ? t(key) : value;
}

/** An API key's access: "Acesso total", or the scopes' names ("Leitura, Saques"). */
export function scopesText(t: Translator, scopes: unknown): string {
  const list = Array.isArray(scopes) ? scopes.map(String) : typeof scopes === "string" ? [scopes] : [];
  if (list.includes("full")) return t("developers.scope.full");
  return list.map((s) => words(t, "developers.scopeName.", s)).join(", ");
}

export const roleText = (t: Translator, role: unknown) => words(t, "team.role.", role);

/** One row's details: a catalog sentence whose `words` are in the reader's language and whose `data` are values. */
export type AuditDetail = { key: MessageKey; words: Vars; data: Vars };

type Details = Record<string, unknown>;
const s = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");
const n = (v: unknown) => (typeof v === "number" ? v : Number(v) || 0);

type Describe = (d: Details, t: Translator, locale: Locale) => AuditDetail | null;

const checkText = (t: Translator, check: unknown) => words(t, "audit.check.", check);
const destinationKind = (t: Translator, kind: unknown) => words(t, "destinations.kind.", kind);

const DESCRIBE: Record<string, Describe> = {
  "auth.signIn": (d) => ({
    key: d.secondFactor ? "audit.detail.signIn.twoFactor" : "audit.detail.signIn.password",
    words: {},
    data: {},
  }),
  "auth.signInFailed": (d) =>
    d.reason === "second factor" ? { key: "audit.detail.signInFailed.secondFactor", words: {}, data: {} } : null,
  "auth.sessionsRevoked": (d) => ({ key: "audit.detail.sessionsEnded", words: { count: n(d.count) }, data: {} }),
  "auth.passwordChanged": (d) => ({
    key: "audit.detail.sessionsEnded",
    words: { count: n(d.sessionsEnded) },
    data: {},
  }),
  "twoFactor.recoveryCodeUsed": (d, t) => ({
    key: "audit.detail.check",
    words: { check: checkText(t, d.check) },
    data: {},
  }),
  "twoFactor.failed": (d, t) => ({
    key: "audit.detail.factorFailed",
    words: { check: checkText(t, d.check), failures: n(d.failures) },
    data: {},
  }),
  "twoFactor.locked": (d, t, locale) => ({
    key: "audit.detail.factorLocked",
    words: {
      check: checkText(t, d.check),
      failures: n(d.failures),
      until: d.until ? formatDateTime(s(d.until), locale) : "",
    },
    data: {},
  }),
  "twoFactor.changeConfirmed": (d) => ({
    key: d.by === "link" ? "audit.detail.changeConfirmed.link" : "audit.detail.changeConfirmed.owner",
    words: {},
    data: { member: s(d.member) },
  }),
  "payoutKey.changed": (d, t) => ({
    key: "audit.detail.fromTo",
    words: {},
    data: { from: s(d.from) || t("audit.none"), to: s(d.to) || t("audit.none") },
  }),
  "payoutKey.confirmed": (d) => ({ key: "audit.detail.pixKey", words: {}, data: { pixKey: s(d.pixKey) } }),
  "company.changed": (d) => ({ key: "audit.detail.fromTo", words: {}, data: { from: s(d.from), to: s(d.to) } }),
  "receipt.splitsChanged": (d) => ({
    key: d.shown ? "audit.detail.receiptSplitsOn" : "audit.detail.receiptSplitsOff",
    words: {},
    data: {},
  }),
  "destination.added": (d, t) => ({
    key: d.label ? "audit.detail.destinationLabelled" : "audit.detail.destination",
    words: { kind: destinationKind(t, d.kind) },
    data: { value: s(d.value), label: s(d.label) },
  }),
  "destination.confirmed": (d, t) => ({
    key: "audit.detail.destination",
    words: { kind: destinationKind(t, d.kind) },
    data: { value: s(d.value) },
  }),
  "destination.removed": (d, t) => ({
    key: "audit.detail.destination",
    words: { kind: destinationKind(t, d.kind) },
    data: { value: s(d.value) },
  }),
  "destination.allowlistChanged": (d) => ({
    key: d.enabled ? "audit.detail.allowlistOn" : "audit.detail.allowlistOff",
    words: {},
    data: {},
  }),
  "apiKey.created": (d, t) => ({
    key: "audit.detail.apiKeyCreated",
    words: { access: scopesText(t, d.scopes) },
    data: { name: s(d.name), prefix: apiKeyShown({ prefix: s(d.prefix), lastFour: s(d.lastFour) || null }) },
  }),
  "apiKey.revoked": (d) => ({
    key: "audit.detail.apiKey",
    words: {},
    data: { name: s(d.name), prefix: apiKeyShown({ prefix: s(d.prefix), lastFour: s(d.lastFour) || null }) },
  }),
  "webhook.created": (d) => ({ key: "audit.detail.webhook", words: {}, data: { url: s(d.url) } }),
  "withdrawal.requested": (d, _t, locale): AuditDetail =>
    d.kind === "onchain"
      ? {
          key: "audit.detail.withdrawalOnchain",
          words: { amount: formatMoney(n(d.valueCentavos), locale), network: networkName(s(d.network)) },
          data: { to: s(d.toAddress) },
        }
      : {
          key: "audit.detail.withdrawalPix",
          words: { amount: formatMoney(n(d.valueCentavos), locale) },
          data: { to: s(d.pixKey) },
        },
  "refund.requested": (d, _t, locale) => ({
    key: "audit.detail.refund",
    words: { amount: formatMoney(n(d.valueCentavos), locale) },
    // The order as the merchant knows it (rows written before it was kept: the id's first 8 digits).
    data: { order: s(d.orderName) || s(d.orderId).slice(0, 8) },
  }),
  "payout.resentByOperator": (d) =>
    d.note ? { key: "audit.detail.note", words: {}, data: { note: s(d.note) } } : null,
  "refund.resentByOperator": (d) =>
    d.note ? { key: "audit.detail.note", words: {}, data: { note: s(d.note) } } : null,
  "payout.resolvedByOperator": (d) => ({
    key: d.outcome === "made" ? "audit.detail.resolvedMade" : "audit.detail.resolvedNotMade",
    words: {},
    data: { note: s(d.note) },
  }),
  "refund.resolvedByOperator": (d) => ({
    key: d.outcome === "made" ? "audit.detail.resolvedMade" : "audit.detail.resolvedNotMade",
    words: {},
    data: { note: s(d.note) },
  }),
  "recon.mismatchResolved": (d) => ({ key: "audit.detail.recon", words: {}, data: { day: s(d.day), note: s(d.note) } }),
  "infraction.defended": (d) => ({
    key: "audit.detail.infraction",
    words: {},
    data: { infraction: s(d.infractionId), order: s(d.orderId).slice(0, 8) },
  }),
  "team.invited": (d, t) => ({
    key: "audit.detail.invited",
    words: { role: roleText(t, d.role) },
    data: { email: s(d.email) },
  }),
  "team.inviteRevoked": (d) => ({ key: "audit.detail.email", words: {}, data: { email: s(d.email) } }),
  "team.removed": (d) => ({ key: "audit.detail.email", words: {}, data: { email: s(d.email) } }),
  "team.joined": (d, t) => ({ key: "audit.detail.joined", words: { role: roleText(t, d.role) }, data: {} }),
  "team.roleChanged": (d, t) => ({
    key: "audit.detail.roleChanged",
    words: { from: roleText(t, d.from), to: roleText(t, d.to) },
    data: { email: s(d.email) },
  }),
};

/** The action's name ("Saque solicitado"); an action added later without a catalog entry gets a general one. */
export function actionText(t: Translator, action: string): string {
  const key = `audit.action.${action}`;
  return isMessageKey(key) ? t(key) : t("audit.action.other");
}

/** The row's details as a sentence, or null when it has none worth saying. */
export function auditDetail(t: Translator, locale: Locale, action: string, details: unknown): AuditDetail | null {
  const describe = DESCRIBE[action];
  const d = details && typeof details === "object" && !Array.isArray(details) ? (details as Details) : {};
  return describe ? describe(d, t, locale) : null;
}

/** The same sentence as plain text (tests, and anywhere the data needs no marking). */
export function auditDetailText(t: Translator, detail: AuditDetail): string {
  return t(detail.key, { ...detail.words, ...detail.data });
}
