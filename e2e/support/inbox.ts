import { expect } from "@playwright/test";
import { SMTPServer } from "smtp-server";
import { E2E_SMTP_PORT } from "../../playwright.config";

// The mailbox of every e2e user: the e2e server mails through SMTP to E2E_SMTP_PORT, and this server
// keeps what arrives. One per worker process, started by the first test that needs it (enabling 2FA
// needs the mailed code; security.spec.ts reads alerts and links) and left running for the next
// spec file in the same worker.

/** `text`: the whole message with quoted-printable undone (links read whole); `raw`: as received. */
export type Mail = { to: string; text: string; raw: string };

const SLOT = Symbol.for("e2e.inbox");
type Inbox = { mails: Mail[]; ready: Promise<void> };

/** Quoted-printable undone: soft line breaks dropped, =XX escapes read as UTF-8 bytes. */
const unQuote = (s: string) =>
  s
    .replace(/=\r?\n/g, "")
    .replace(/(=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replace(/=/g, ""), "hex").toString("utf8"));

function start(): Inbox {
  const mails: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString("utf8")));
      stream.on("end", () => {
        // Plain-text mail: undo quoted-printable soft breaks and escapes so links read whole.
        const text = unQuote(raw);
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(","), text, raw });
        callback();
      });
    },
  });
  const ready = new Promise<void>((resolve, reject) => {
    smtp.server.once("error", reject);
    smtp.listen(E2E_SMTP_PORT, "127.0.0.1", () => {
      // Never what keeps the worker alive.
      smtp.server.unref();
      resolve();
    });
  });
  return { mails, ready };
}

/** The mails received so far (started on first use). */
export async function inbox(): Promise<Mail[]> {
  const g = globalThis as { [SLOT]?: Inbox };
  const box = (g[SLOT] ??= start());
  await box.ready;
  return box.mails;
}

/** The newest mail to `address` whose text matches, waiting up to 60 s for it (a loaded machine). */
export async function mailTo(address: string, match: RegExp): Promise<Mail> {
  const mails = await inbox();
  const found = () => mails.filter((m) => m.to.toLowerCase() === address.toLowerCase() && match.test(m.text));
  await expect
    .poll(() => found().length, { timeout: 60_000, message: `a mail to ${address} matching ${match}` })
    .toBeGreaterThan(0);
  return found().at(-1)!;
}

/** Mails to `address` matching `match` that arrive after `since` mails had been received. */
export async function newMailTo(address: string, match: RegExp, since: number): Promise<Mail> {
  const mails = await inbox();
  const found = () =>
    mails.slice(since).filter((m) => m.to.toLowerCase() === address.toLowerCase() && match.test(m.text));
  await expect
    .poll(() => found().length, { timeout: 60_000, message: `a new mail to ${address} matching ${match}` })
    .toBeGreaterThan(0);
  return found().at(-1)!;
}

/** A link with a token in a mail (reset, invitation, confirmation). */
export const linkIn = (mail: Mail, path = "") =>
  new RegExp(`https?://\\S+${path.replace(/[?]/g, "\\?")}\\S*token=[A-Za-z0-9_-]{43}`).exec(mail.text)![0];

/**
 * What a person reads in a mail: its subject (RFC 2047 encoded words decoded) and its body (quoted-printable
 * or base64 undone), without the other headers.
 */
export function readable(mail: Mail): { subject: string; body: string } {
  const split = mail.raw.search(/\r?\n\r?\n/);
  const head = mail.raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const rest = mail.raw.slice(split).trim();
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1] ?? "";
  const subject = header("Subject")
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_, enc: string, words: string) =>
      enc.toLowerCase() === "b" ? Buffer.from(words, "base64").toString("utf8") : unQuote(words.replace(/_/g, " ")),
    );
  const encoding = header("Content-Transfer-Encoding");
  const body = /base64/i.test(encoding)
    ? Buffer.from(rest.replace(/\s+/g, ""), "base64").toString("utf8")
    : /quoted/i.test(encoding)
      ? unQuote(rest)
      : rest;
  return { subject, body };
}
