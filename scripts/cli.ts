import { runCli } from "./cli/commands";

// `npm run cli -- <command>`: the operator CLI (scripts/cli/commands.ts) as a process.
async function main() {
  // Service logs must not interleave with the JSON on stdout; warnings still reach stderr.
  process.env.LOG_LEVEL ??= "warn";
  const out = await runCli(process.argv.slice(2));
  process.stdout.write(out.stdout);
  process.stderr.write(out.stderr);
  process.exitCode = out.code;
}

void main();
