"use client";

import { useEffect, useId, useState } from "react";
import type { OpenApiDocument } from "@/lib/api/openapi";
import { buttonClass } from "@/components/ui/button";
import { Backticked } from "./backticked";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/components/ui/cn";

// Renders the OpenAPI document: operations grouped by tag, each with its parameters, request schema,
// curl sample, responses per status with examples, and a form that sends the request from the
// browser (same origin, so no CORS). Plain elements throughout: <details> and native controls keep
// it keyboard- and screen-reader-friendly without scripts of our own for focus handling.

type Json = Record<string, unknown>;
type Schema = Json & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  description?: string;
  format?: string;
  default?: unknown;
};
type Parameter = {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description?: string;
  schema?: Schema;
};
type Media = { schema?: Schema; example?: unknown };
type Response = { description: string; content?: Record<string, Media> };
type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
  "x-codeSamples"?: { lang: string; source: string }[];
};
type Entry = { method: string; path: string; op: Operation };

const METHOD_STYLE: Record<string, string> = {
  GET: "bg-sky-100 text-sky-900",
  POST: "bg-emerald-100 text-emerald-900",
  PATCH: "bg-amber-100 text-amber-900",
  DELETE: "bg-red-100 text-red-900",
};

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

function resolve(doc: OpenApiDocument, s: Schema | undefined): Schema | undefined {
  if (!s?.$ref) return s;
  const name = s.$ref.replace("#/components/schemas/", "");
  return {
    ...(doc.components.schemas[name] as Schema),
    description: s.description ?? (doc.components.schemas[name] as Schema)?.description,
  };
}

function typeLabel(doc: OpenApiDocument, raw: Schema | undefined): string {
  const s = resolve(doc, raw);
  if (!s) return "any";
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a) => typeLabel(doc, a)).join(" | ");
  const t = Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any");
  if (t === "array") return `${typeLabel(doc, s.items)}[]`;
  return s.format ? `${t} (${s.format})` : t;
}

/** A schema as a nested list of fields: name, type, required, description. */
function SchemaView({ doc, schema, depth = 0 }: { doc: OpenApiDocument; schema: Schema | undefined; depth?: number }) {
  const s = resolve(doc, schema);
  if (!s) return null;
  const alts = s.anyOf ?? s.oneOf;
  if (alts && depth < 4) {
    return (
      <ul className="space-y-2">
        {alts.map((a, i) => (
          <li key={i} className="rounded-md border border-slate-200 p-2">
            <p className="mb-1 text-xs font-medium text-slate-600">Variant {i + 1}</p>
            <SchemaView doc={doc} schema={a} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  const target = s.type === "array" ? resolve(doc, s.items) : s;
  if (!target?.properties) return <p className="font-mono text-xs text-slate-700">{typeLabel(doc, s)}</p>;
  const required = new Set(target.required ?? []);
  return (
    <ul className={cn("space-y-1.5", depth > 0 && "mt-1 border-l border-slate-200 pl-3")}>
      {Object.entries(target.properties).map(([name, prop]) => {
        const p = resolve(doc, prop);
        const nested =
          p && (p.properties || (p.type === "array" && resolve(doc, p.items)?.properties) || p.anyOf || p.oneOf);
        return (
          <li key={name} className="text-sm">
            <span className="break-all font-mono text-xs font-semibold text-slate-900">{name}</span>{" "}
            <span className="break-all font-mono text-xs text-slate-600">{typeLabel(doc, prop)}</span>{" "}
            {required.has(name) ? (
              <span className="text-xs font-medium text-red-700">required</span>
            ) : (
              <span className="text-xs text-slate-600">optional</span>
            )}
            {p?.description ? (
              <p className="text-xs text-slate-700">
                <Backticked>{p.description}</Backticked>
              </p>
            ) : null}
            {p?.default !== undefined ? (
              <p className="text-xs text-slate-600">Default: {JSON.stringify(p.default)}</p>
            ) : null}
            {nested && depth < 4 ? <SchemaView doc={doc} schema={p} depth={depth + 1} /> : null}
          </li>
        );
      })}
    </ul>
  );
}

function Code({ label, text }: { label: string; text: string }) {
  return (
    <div className="mt-2">
      <div className="mb-1 flex items-center justify-between gap-2">
        <p className="text-xs font-medium text-slate-700">{label}</p>
        <CopyButton value={text} what={label} className="min-h-8 px-2 py-1 text-xs" />
      </div>
      <pre
        tabIndex={0}
        aria-label={label}
        className="max-h-80 overflow-auto rounded-lg bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700"
      >
        {text}
      </pre>
    </div>
  );
}

type Credentials = { apiKey: string; adminToken: string; header: "authorization" | "bearer" };

function TryIt({ entry, creds }: { entry: Entry; creds: Credentials }) {
  const id = useId();
  const { method, path, op } = entry;
  const params = (op.parameters ?? []).filter((p) => p.in !== "header");
  const example = op.requestBody?.content["application/json"]?.example;
  const [values, setValues] = useState<Record<string, string>>({});
  const [body, setBody] = useState(example === undefined ? "" : pretty(example));
  const [result, setResult] = useState<{ status: number; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const admin = op.security.some((s) => "adminToken" in s);
  const needsKey = op.security.length > 0;

  async function send(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    setResult(null);
    let url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[`path:${name}`] ?? ""));
    const query = new URLSearchParams();
    for (const p of params)
      if (p.in === "query" && values[`query:${p.name}`]) query.set(p.name, values[`query:${p.name}`]);
    if ([...query].length) url += `?${query}`;
    const headers = new Headers();
    const key = admin ? creds.adminToken : creds.apiKey;
    if (needsKey && key) {
      if (!admin && creds.header === "bearer") headers.set("Bearer", key);
      else headers.set("Authorization", `Bearer ${key}`);
    }
    let payload: string | undefined;
    if (op.requestBody) {
      try {
        JSON.parse(body);
      } catch {
        setError("The body is not valid JSON.");
        return;
      }
      payload = body;
      headers.set("Content-Type", "application/json");
    }
    setBusy(true);
    try {
      const res = await fetch(url, { method, headers, body: payload });
      const type = res.headers.get("content-type") ?? "";
      const text = type.includes("json")
        ? pretty(await res.json().catch(() => null))
        : type.startsWith("image/")
          ? `(${type}, ${(await res.blob()).size} bytes)`
          : await res.text();
      setResult({ status: res.status, text });
    } catch (err) {
      setError(`The request did not complete: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={send} className="space-y-3" aria-describedby={`${id}-hint`}>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        Sends the request from this browser to this server
        {needsKey ? ` with the ${admin ? "operator token" : "API key"} entered at the top of the page` : ""}.
      </p>
      {params.map((p) => {
        const k = `${p.in}:${p.name}`;
        return (
          <div key={k}>
            <label htmlFor={`${id}-${k}`} className="block text-sm font-medium text-slate-800">
              {p.name}{" "}
              <span className="font-normal text-slate-600">
                ({p.in}
                {p.required ? ", required" : ""})
              </span>
            </label>
            <input
              id={`${id}-${k}`}
              value={values[k] ?? ""}
              required={p.required}
              onChange={(e) => setValues({ ...values, [k]: e.target.value })}
              placeholder={p.description}
              className="mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 font-mono text-sm focus:border-brand-700 focus:outline-2 focus:outline-brand-700"
            />
          </div>
        );
      })}
      {op.requestBody ? (
        <div>
          <label htmlFor={`${id}-body`} className="block text-sm font-medium text-slate-800">
            Body (JSON)
          </label>
          <textarea
            id={`${id}-body`}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            rows={Math.min(14, body.split("\n").length + 1)}
            spellCheck={false}
            className="mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 font-mono text-xs focus:border-brand-700 focus:outline-2 focus:outline-brand-700"
          />
        </div>
      ) : null}
      <button type="submit" disabled={busy} className={buttonClass("primary")}>
        {busy ? "Sending…" : `Send ${method} request`}
      </button>
      <div aria-live="polite">
        {error ? <p className="text-sm font-medium text-red-700">{error}</p> : null}
        {result ? <Code label={`Response: HTTP ${result.status}`} text={result.text} /> : null}
      </div>
    </form>
  );
}

/** Who may call the operation; for an API key, the scope it needs (the requirement's role list). */
function authLine(op: Operation): string {
  if (op.security.length === 0) return "No authentication.";
  if (op.security.some((s) => "adminToken" in s)) return "Operator: Authorization: Bearer <ADMIN_TOKEN>.";
  const scopes = Object.values(op.security[0] ?? {})[0] ?? [];
  const needs = scopes.length ? ` with the \`${scopes.join("`, `")}\` scope` : "";
  return `API key${needs}: Authorization: Bearer <key>, or a header named Bearer.`;
}

function OperationView({ doc, entry, creds }: { doc: OpenApiDocument; entry: Entry; creds: Credentials }) {
  const { method, path, op } = entry;
  const params = op.parameters ?? [];
  const request = op.requestBody?.content["application/json"];
  const curl = op["x-codeSamples"]?.find((c) => c.lang === "curl")?.source;
  return (
    <article
      id={op.operationId}
      aria-labelledby={`${op.operationId}-title`}
      className="scroll-mt-4 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className={cn("rounded px-2 py-0.5 font-mono text-xs font-bold", METHOD_STYLE[method] ?? "bg-slate-100")}>
          {method}
        </span>
        <code className="break-all font-mono text-sm text-slate-900">{path}</code>
      </div>
      <h3 id={`${op.operationId}-title`} className="mt-2 text-lg font-semibold text-slate-900">
        {op.summary}
      </h3>
      {op.description ? (
        <p className="mt-1 text-sm text-slate-700">
          <Backticked>{op.description}</Backticked>
        </p>
      ) : null}
      <p className="mt-1 text-xs text-slate-600">
        <Backticked>{authLine(op)}</Backticked>
      </p>

      {params.length ? (
        <section className="mt-4">
          <h4 className="text-sm font-semibold text-slate-900">Parameters</h4>
          <ul className="mt-1 space-y-1">
            {params.map((p) => (
              <li key={`${p.in}:${p.name}`} className="text-sm">
                <span className="break-all font-mono text-xs font-semibold">{p.name}</span>{" "}
                <span className="text-xs text-slate-600">
                  {p.in}, {typeLabel(doc, p.schema)}
                  {p.required ? ", required" : ""}
                </span>
                {p.description ? (
                  <p className="text-xs text-slate-700">
                    <Backticked>{p.description}</Backticked>
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {request ? (
        <section className="mt-4">
          <h4 className="text-sm font-semibold text-slate-900">Request body</h4>
          <div className="mt-1">
            <SchemaView doc={doc} schema={request.schema} />
          </div>
        </section>
      ) : null}

      {curl ? <Code label="Example request (curl)" text={curl} /> : null}

      <section className="mt-4">
        <h4 className="text-sm font-semibold text-slate-900">Responses</h4>
        <div className="mt-1 space-y-1">
          {Object.entries(op.responses).map(([status, res]) => {
            const media = res.content?.["application/json"];
            const ok = status.startsWith("2");
            return (
              <details key={status} open={ok} className="rounded-lg border border-slate-200 px-3 py-2">
                <summary className="cursor-pointer text-sm focus-visible:outline-2 focus-visible:outline-brand-700">
                  <span className={cn("font-mono font-semibold", ok ? "text-emerald-800" : "text-red-800")}>
                    {status}
                  </span>{" "}
                  <span className="text-slate-700">
                    <Backticked>{res.description}</Backticked>
                  </span>
                </summary>
                {media?.schema ? (
                  <div className="mt-2">
                    <SchemaView doc={doc} schema={media.schema} />
                  </div>
                ) : null}
                {media?.example !== undefined ? (
                  <Code label={`Example ${status} response`} text={pretty(media.example)} />
                ) : null}
                {res.content && !media ? (
                  <p className="mt-1 text-xs text-slate-600">{Object.keys(res.content).join(", ")}</p>
                ) : null}
              </details>
            );
          })}
        </div>
      </section>

      <details className="mt-4 rounded-lg border border-brand-100 bg-brand-50 px-3 py-2">
        <summary className="cursor-pointer text-sm font-semibold text-brand-900 focus-visible:outline-2 focus-visible:outline-brand-700">
          Try it
        </summary>
        <div className="mt-2">
          <TryIt entry={entry} creds={creds} />
        </div>
      </details>
    </article>
  );
}

export function ApiReference({ doc }: { doc: OpenApiDocument }) {
  const [creds, setCreds] = useState<Credentials>({ apiKey: "", adminToken: "", header: "authorization" });
  // Contents start folded on phones (they would fill the first screen) and open beside the text on wide screens.
  const [contentsOpen, setContentsOpen] = useState(false);
  useEffect(() => setContentsOpen(window.matchMedia("(min-width: 1024px)").matches), []);
  const entries: Entry[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as unknown as Operation })),
  );
  const groups = doc.tags
    .map((tag) => ({ ...tag, entries: entries.filter((e) => e.op.tags.includes(tag.name)) }))
    .filter((g) => g.entries.length > 0);
  const slug = (name: string) => `tag-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  const info = doc.info as { title: string; version: string; description?: string };

  return (
    <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6 sm:py-10 lg:grid lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-8">
      <header className="mb-8 lg:col-span-2">
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-700">API reference · v{info.version}</p>
        <h2 className="mt-1 text-2xl font-bold tracking-tight sm:text-3xl">{info.title}</h2>
        {info.description ? (
          <p className="mt-3 max-w-3xl text-sm text-slate-700 [overflow-wrap:anywhere]">
            <Backticked>{info.description}</Backticked>
          </p>
        ) : null}
        <p className="mt-3 text-sm text-slate-700">
          Machine-readable:{" "}
          <a href="/api/v1/openapi.json" className="font-medium text-brand-700 underline">
            /api/v1/openapi.json
          </a>{" "}
          (OpenAPI 3.1).
        </p>
        <fieldset className="mt-4 grid min-w-0 gap-3 rounded-xl border border-slate-200 bg-white p-4 sm:grid-cols-2">
          <legend className="px-1 text-sm font-semibold">Credentials for “Try it” (kept in this tab only)</legend>
          <div>
            <label htmlFor="docs-api-key" className="block text-sm font-medium text-slate-800">
              API key
            </label>
            <input
              id="docs-api-key"
              type="password"
              autoComplete="off"
              placeholder="sk_test_…"
              value={creds.apiKey}
              onChange={(e) => setCreds({ ...creds, apiKey: e.target.value.trim() })}
              className="mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 font-mono text-sm focus:border-brand-700 focus:outline-2 focus:outline-brand-700"
            />
          </div>
          <div>
            <label htmlFor="docs-admin-token" className="block text-sm font-medium text-slate-800">
              Operator token <span className="font-normal text-slate-600">(operator endpoints only)</span>
            </label>
            <input
              id="docs-admin-token"
              type="password"
              autoComplete="off"
              value={creds.adminToken}
              onChange={(e) => setCreds({ ...creds, adminToken: e.target.value.trim() })}
              className="mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 font-mono text-sm focus:border-brand-700 focus:outline-2 focus:outline-brand-700"
            />
          </div>
          <div className="sm:col-span-2">
            <label htmlFor="docs-key-header" className="block text-sm font-medium text-slate-800">
              Send the API key as
            </label>
            <select
              id="docs-key-header"
              value={creds.header}
              onChange={(e) => setCreds({ ...creds, header: e.target.value === "bearer" ? "bearer" : "authorization" })}
              className="mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus:border-brand-700 focus:outline-2 focus:outline-brand-700 sm:w-auto"
            >
              <option value="authorization">Authorization: Bearer &lt;key&gt;</option>
              <option value="bearer">Bearer: &lt;key&gt;</option>
            </select>
          </div>
        </fieldset>
      </header>
      <nav
        aria-label="API sections"
        className="mb-6 lg:sticky lg:top-4 lg:mb-0 lg:row-start-2 lg:max-h-[calc(100vh-2rem)] lg:self-start lg:overflow-y-auto"
      >
        <details
          open={contentsOpen}
          onToggle={(e) => setContentsOpen(e.currentTarget.open)}
          className="rounded-xl border border-slate-200 bg-white p-3 lg:border-0 lg:bg-transparent lg:p-0"
        >
          <summary className="cursor-pointer text-sm font-semibold focus-visible:outline-2 focus-visible:outline-brand-700 lg:sr-only">
            Contents
          </summary>
          <ul className="mt-2 space-y-3 text-sm lg:mt-0">
            {groups.map((g) => (
              <li key={g.name}>
                <a
                  href={`#${slug(g.name)}`}
                  className="font-semibold text-slate-900 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700"
                >
                  {g.name}
                </a>
                <ul className="mt-1 space-y-1 border-l border-slate-200 pl-3">
                  {g.entries.map((e) => (
                    <li key={e.op.operationId}>
                      <a
                        href={`#${e.op.operationId}`}
                        className="text-slate-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700"
                      >
                        <span className="font-mono text-xs font-semibold">{e.method}</span> {e.op.summary}
                      </a>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </details>
      </nav>

      <main className="min-w-0 lg:row-start-2">
        {groups.map((g) => (
          <section
            key={g.name}
            id={slug(g.name)}
            aria-labelledby={`${slug(g.name)}-title`}
            className="mb-10 scroll-mt-4"
          >
            <h2 id={`${slug(g.name)}-title`} className="text-xl font-semibold text-slate-900">
              {g.name}
            </h2>
            <p className="mb-4 text-sm text-slate-700">{g.description}</p>
            <div className="space-y-6">
              {g.entries.map((e) => (
                <OperationView key={e.op.operationId} doc={doc} entry={e} creds={creds} />
              ))}
            </div>
          </section>
        ))}
      </main>
    </div>
  );
}
