#!/usr/bin/env node
// Commit messages: a subject of at most 72 characters that says what, with no trailing period, and,
// for a commit that is not trivial, a blank line and a body that says why (docs/testing.md#commit-messages).
//
//   node scripts/check-commit-msg.mjs <file>   the commit-msg hook (.githooks/commit-msg): the message being written
//   node scripts/check-commit-msg.mjs --range  `npm run lint`: every commit after BASE on HEAD (merges left out)
//
// Commits up to BASE were written before the rule and are not judged. Outside a git work tree, or in
// a shallow clone that lacks BASE, the range check is skipped with a note.

import { execFileSync } from "node:child_process";
import fs from "node:fs";

const BASE = "7a9a340464f60d0643287958c6bb1bcf41929752";
const MAX_SUBJECT = 72;
// A commit that changes at most this many lines may go without a body.
const TRIVIAL_LINES = 10;

const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });

/** Changed lines (added + deleted) in `numstat` output; binary files count as one. */
function changedLines(numstat) {
  return numstat
    .split("\n")
    .filter(Boolean)
    .reduce((n, line) => {
      const [added, deleted] = line.split("\t");
      return n + (added === "-" ? 1 : Number(added) + Number(deleted));
    }, 0);
}

/** The problems with `message` (comment lines dropped, as git does), for a commit of `lines` changed lines. */
export function problems(message, lines) {
  const text = message
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n")
    .trim();
  const [subject = "", second, ...rest] = text.split("\n");
  if (/^(Merge|Revert|fixup!|squash!|amend!) /.test(subject)) return [];
  const found = [];
  if (subject.trim() === "") return ["the subject is empty"];
  if (subject.length > MAX_SUBJECT) found.push(`the subject has ${subject.length} characters (at most ${MAX_SUBJECT})`);
  if (/\.$/.test(subject)) found.push("the subject ends with a period");
  if (second !== undefined && second.trim() !== "") found.push("the subject is not followed by a blank line");
  const body = rest.join("\n").trim();
  if (body === "" && lines > TRIVIAL_LINES) found.push(`no body saying why (the commit changes ${lines} lines)`);
  return found;
}

function report(what, found) {
  for (const p of found) console.error(`${what}: ${p}`);
}

function checkFile(file) {
  let lines = 0;
  try {
    lines = changedLines(git("diff", "--cached", "--numstat"));
  } catch {
    // Not in a repository (a message checked on its own): judged as a non-trivial commit.
    lines = Infinity;
  }
  const found = problems(fs.readFileSync(file, "utf8"), lines);
  report("commit message", found);
  if (found.length > 0) console.error("(docs/testing.md#commit-messages; the message is kept in .git/COMMIT_EDITMSG)");
  return found.length === 0;
}

function checkRange() {
  try {
    if (git("rev-parse", "--is-inside-work-tree").trim() !== "true") throw new Error();
  } catch {
    console.log("check-commit-msg: not a git work tree, skipped");
    return true;
  }
  try {
    git("cat-file", "-e", `${BASE}^{commit}`);
  } catch {
    console.log(`check-commit-msg: base ${BASE.slice(0, 12)} is not in this clone (shallow?), skipped`);
    return true;
  }
  const shas = git("rev-list", "--no-merges", `${BASE}..HEAD`).split("\n").filter(Boolean);
  let ok = true;
  for (const sha of shas) {
    const message = git("log", "-1", "--format=%B", sha);
    const found = problems(message, changedLines(git("show", "--numstat", "--format=", sha)));
    if (found.length > 0) ok = false;
    report(`${sha.slice(0, 12)} ${message.split("\n")[0].slice(0, 50)}`, found);
  }
  return ok;
}

const [arg] = process.argv.slice(2);
if (!arg) {
  console.error("usage: check-commit-msg.mjs <message file> | --range");
  process.exit(2);
}
process.exit((arg === "--range" ? checkRange() : checkFile(arg)) ? 0 : 1);
