#!/usr/bin/env node
// Checks that the folders of lib/ depend on each other one way, at two levels: no import cycle between
// lib/'s top folders (lib/identity with everything under it ↔ lib/merchants), none between folders
// (lib/providers/chain is its own), and none between files either. A file directly in lib/ (env.ts,
// log.ts, …) counts as a folder of its own. Every import counts, type-only and dynamic ones too: a
// cycle of types is still two modules that cannot be understood apart. Tests are left out.
//
// It also runs scripts/check-citations.mjs: comments cite only what is in the repository (docs/, paths
// that exist), never an outside document, an issue number or a line number.
//
//   node scripts/check-deps.mjs           report cycles and citations, exit 1 if there is one
//   node scripts/check-deps.mjs --graph   also print which folder imports which

import fs from "node:fs";
import path from "node:path";
import { checkCitations } from "./check-citations.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const lib = path.join(root, "lib");

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function resolve(from, spec) {
  let base;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

// import … from "x"; export … from "x"; import "x"; import("x")
const IMPORT =
  /(?:^|[^\w.])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

const files = sources(lib);
const imports = new Map();
for (const file of files) {
  const text = fs.readFileSync(file, "utf8");
  const targets = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(file, m[1] ?? m[2]);
    if (target && target.startsWith(lib + path.sep)) targets.add(target);
  }
  imports.set(file, targets);
}

const rel = (f) => path.relative(root, f);
const folderOf = (f) => (path.dirname(f) === lib ? rel(f).replace(/\.tsx?$/, "") : rel(path.dirname(f)));

/** Strongly connected components of more than one node (Tarjan). */
function cycles(nodes, next) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) visit(n);
  return found;
}

/** lib/'s top folder of a file (lib/identity for lib/identity/api-keys/keys.ts); a file directly in lib/ is its own. */
const topOf = (f) => {
  const [first, ...rest] = path.relative(lib, f).split(path.sep);
  return rest.length === 0 ? rel(f).replace(/\.tsx?$/, "") : `lib/${first}`;
};

/** Edges between the groups `groupOf` puts files in, each with the file imports that make it. */
function groupEdges(groupOf) {
  const edges = new Map();
  for (const [file, targets] of imports) {
    const from = groupOf(file);
    for (const target of targets) {
      const to = groupOf(target);
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const out = edges.get(from);
      if (!out.has(to)) out.set(to, []);
      out.get(to).push(`${rel(file)} → ${rel(target)}`);
    }
  }
  return edges;
}

// Both levels: lib/'s top folders (a domain and everything under it), and every folder on its own.
const levels = [
  { name: "top-folder", groupOf: topOf },
  { name: "folder", groupOf: folderOf },
].map((level) => {
  const edges = groupEdges(level.groupOf);
  const groups = [...new Set(files.map(level.groupOf))];
  return { ...level, edges, groups, cycles: cycles(groups, (g) => [...(edges.get(g)?.keys() ?? [])]) };
});
const fileCycles = cycles(files, (f) => [...(imports.get(f) ?? [])]);

if (process.argv.includes("--graph")) {
  for (const [from, edges] of [...levels[0].edges].sort())
    console.log(`${from} → ${[...edges.keys()].sort().join(", ")}`);
  console.log();
}
for (const level of levels) {
  for (const component of level.cycles) {
    console.log(`${level.name} cycle: ${component.join(" ↔ ")}`);
    for (const from of component) {
      for (const [to, why] of level.edges.get(from) ?? []) {
        if (component.includes(to))
          console.log(`  ${from} → ${to}: ${why.slice(0, 3).join("; ")}${why.length > 3 ? `; … (${why.length})` : ""}`);
      }
    }
  }
}
for (const component of fileCycles) console.log(`file cycle: ${component.map(rel).join(" ↔ ")}`);
const [top, folders] = levels;
console.log(
  `lib/: ${files.length} files in ${folders.groups.length} folders (${top.groups.length} at the top); ` +
    `${top.cycles.length} top-folder cycles, ${folders.cycles.length} folder cycles, ${fileCycles.length} file cycles`,
);
const citations = checkCitations();
for (const problem of citations) console.log(`citation: ${problem}`);
console.log(`comments: ${citations.length} citations outside the repository or of paths that do not exist`);
process.exit(top.cycles.length + folders.cycles.length + fileCycles.length + citations.length > 0 ? 1 : 0);
