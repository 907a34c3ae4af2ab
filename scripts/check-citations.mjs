// Checks that comments in source files send the reader only to places inside the repository: the
// decisions the code relies on are written in docs/, and comments cite those. Fails on
//   - a citation of a document that is not in the repository: "CONTRACT §6", "spec §2.5", "Spec §8",
//     a bare "§10" (an RFC's or another published standard's section, "RFC 9110 §10.2.3", is fine),
//     "issue 15" / "issue #15" (the tracker), "shared/notes/…" (files beside the clone);
//   - a repository path that does not exist ("lib/identity/dashboard/roles.ts" after a move), a ":31" line suffix
//     included (line numbers go stale: cite the file and a name in it);
//   - a docs/*.md#anchor whose heading does not exist (anchors are GitHub's: lower-case, punctuation
//     dropped, spaces as hyphens).
// Comments are read with TypeScript's own parser, so strings and template literals never count.
//
//   node scripts/check-citations.mjs      report, exit 1 if there is one (also run by check-deps.mjs)

import fs from "node:fs";
import path from "node:path";
import ts from "typescript6"; // the JS API (typescript 7 is the native compiler, without one)

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const DIRS = ["app", "components", "lib", "db", "scripts", "tests", "e2e", "examples", "sdk/src", "sdk/scripts"];
const SKIP = new Set(["node_modules", ".next", "dist", "generated"]);

function sources(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : sources(p);
    return /\.(tsx?|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

const OUTSIDE = [
  [/\bCONTRACT\b/, "cites CONTRACT (not in the repository)"],
  [/\b[Ss]pec(?:ification)?(?:'s)?\s*§/, "cites the spec by section (not in the repository)"],
  [
    /(?<!\b(?:RFC|BIP|EIP|ERC|FIPS|ISO|OpenAPI|JSON Schema)[\s\d.-]{0,12})§\s?\d/,
    "cites a section § of a document not in the repository",
  ],
  [/\b[Ii]ssues?\s+#?\d+/, "cites an issue of the tracker (not in the repository)"],
  [
    /(?:^|[\s(`'"])(?:\.\.\/)+shared\/|(?:^|[\s(`'"])shared\/(?:notes|data|spec)\//,
    "cites a file outside the repository",
  ],
];

// A path inside the repository, as comments write them: lib/x/y.ts, docs/api.md#anchor, db/schema.ts:31.
const PATH =
  /(?<![\w./@-])((?:app|components|lib|db|scripts|tests|e2e|docs|sdk|examples|drizzle)\/[\w.()[\]/-]*\.(?:tsx?|mjs|md|sql|json|ya?ml))(:\d+)?(#[\w-]+)?/g;

const slugsOf = new Map();
function slugs(file) {
  if (!slugsOf.has(file)) {
    const set = new Set();
    let inFence = false;
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      if (/^\s*```/.test(line)) inFence = !inFence;
      const m = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!m) continue;
      const base = m[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
      let slug = base;
      for (let n = 1; set.has(slug); n++) slug = `${base}-${n}`;
      set.add(slug);
    }
    slugsOf.set(file, set);
  }
  return slugsOf.get(file);
}

function comments(file, text) {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : file.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map();
  const collect = (ranges) => {
    for (const r of ranges ?? []) if (!seen.has(r.pos)) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  collect(ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()));
  return [...seen].map(([pos, body]) => ({ line: sf.getLineAndCharacterOfPosition(pos).line + 1, body }));
}

export function checkCitations() {
  const problems = [];
  // This file names the forms it refuses.
  const self = path.join(root, "scripts", "check-citations.mjs");
  for (const file of DIRS.flatMap((d) => sources(path.join(root, d))).filter((f) => f !== self)) {
    const text = fs.readFileSync(file, "utf8");
    const rel = path.relative(root, file);
    for (const { line, body } of comments(file, text)) {
      body.split("\n").forEach((l, i) => {
        const where = `${rel}:${line + i}`;
        for (const [re, why] of OUTSIDE) if (re.test(l)) problems.push(`${where}: ${why}: ${l.trim()}`);
        for (const m of l.matchAll(PATH)) {
          const [, cited, lineNo, anchor] = m;
          const target = path.join(root, cited);
          if (!fs.existsSync(target)) problems.push(`${where}: cites ${cited}, which does not exist`);
          else if (lineNo) problems.push(`${where}: cites ${cited}${lineNo}: name what is cited, not its line`);
          else if (anchor && cited.endsWith(".md") && !slugs(target).has(anchor.slice(1)))
            problems.push(`${where}: cites ${cited}${anchor}, a heading ${cited} does not have`);
        }
      });
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = checkCitations();
  for (const p of problems) console.log(p);
  process.exit(problems.length > 0 ? 1 : 0);
}
