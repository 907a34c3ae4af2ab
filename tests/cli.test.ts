import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/db";
import { merchants } from "@/db/schema";
import { authenticateMerchant } from "@/lib/identity/api-keys/authenticate";
import { resetEnvForTests } from "@/lib/env";
import { runCli } from "@/scripts/cli/commands";
import { saveEnv } from "./support/env";
import { testDatabaseUrl } from "./support/database";

// The operator CLI. One test runs it as an operator would, a separate process against the test database
// (node with tsx's loader, as `npm run cli` does, without npm); the others drive the same commands
// in-process through runCli, which is what the process prints and exits with: starting a process costs
// seconds of CPU apiece, 20 s on a loaded machine.

const ROOT = path.resolve(__dirname, "..");

async function spawnCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/cli.ts", ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: testDatabaseUrl(), PAYMENTS_MODE: "sandbox", LOG_LEVEL: "warn" },
        timeout: 90_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? String(err) };
  }
}

const cli = (...args: string[]) => runCli(args, { database: "current" });

async function cliJson(...args: string[]) {
  const res = await cli(...args);
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout);
}

let env: { restore: () => void } | undefined;
afterEach(() => {
  env?.restore();
  env = undefined;
});

const keyRequest = (key: string) =>
  new Request("http://localhost:3000/api/v1/account", { headers: { authorization: `Bearer ${key}` } });

describe("npm run cli", () => {
  it("as a process: merchants create prints JSON { merchant, apiKey } and exits 0, with a key that authenticates; bad input exits 1", async () => {
    const res = await spawnCli(
      "merchants",
      "create",
      "--company",
      "Loja CLI",
      "--pix-key",
      "+55 (11) 98765-4321",
      "--account-type",
      "verified",
      "--opening-balance",
      "2500",
    );
    expect(res).toMatchObject({ code: 0, stderr: "" });
    const out = JSON.parse(res.stdout);
    expect(out.merchant).toEqual({
      id: expect.any(String),
      companyName: "Loja CLI",
      pixKey: "+5511987654321",
      accountType: "verified",
      balance: 2500,
    });
    expect(out.apiKey).toMatch(/^sk_test_/);
    expect((await authenticateMerchant(keyRequest(out.apiKey))).id).toBe(out.merchant.id);

    const bad = await spawnCli("merchants", "create", "--company", "X", "--colour", "blue");
    expect(bad).toMatchObject({ code: 1, stdout: "" });
    expect(bad.stderr).toContain("--colour");
    // Two processes, each loading the service through tsx: tens of seconds on a loaded machine.
  }, 180_000);

  it("merchants update, merchants list, keys create/list/revoke", async () => {
    const { merchant } = await cliJson("merchants", "create", "--company", "Ciclo Completo");
    const updated = await cliJson(
      "merchants",
      "update",
      merchant.id,
      "--account-type",
      "business",
      "--pix-key",
      "52998224725",
    );
    expect(updated.merchant).toMatchObject({ id: merchant.id, accountType: "business", pixKey: "52998224725" });
    const [row] = await db().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row.accountType).toBe("business");

    const listed = await cliJson("merchants", "list");
    expect(listed.merchants).toContainEqual(updated.merchant);

    const created = await cliJson("keys", "create", merchant.id, "--name", "pos");
    expect(created.apiKey).toMatchObject({ name: "pos", key: expect.stringMatching(/^sk_test_/) });
    const keys = await cliJson("keys", "list", merchant.id);
    expect(keys.apiKeys.map((k: { name: string }) => k.name)).toEqual(["default", "pos"]);
    expect(JSON.stringify(keys)).not.toContain(created.apiKey.key);

    const revoked = await cliJson("keys", "revoke", merchant.id, created.apiKey.id);
    expect(revoked.apiKey.revokedAt).toEqual(expect.any(String));
    await expect(authenticateMerchant(keyRequest(created.apiKey.key))).rejects.toMatchObject({ status: 401 });
  });

  it("keys create --scopes makes a key with exactly those; unknown scopes and a merchant at its key cap are refused with a message", async () => {
    const { merchant } = await cliJson("merchants", "create", "--company", "Escopos CLI");
    const created = await cliJson("keys", "create", merchant.id, "--name", "leitura", "--scopes", "read,payments");
    expect(created.apiKey.scopes).toEqual(["read", "payments"]);
    const everything = await cliJson("keys", "create", merchant.id, "--name", "tudo");
    expect(everything.apiKey.scopes).toEqual(["read", "payments", "refunds", "withdrawals"]);
    const unknown = await cli("keys", "create", merchant.id, "--scopes", "read,admin");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--scopes must list one or more of read, payments, refunds, withdrawals");
    env = saveEnv();
    process.env.MAX_API_KEYS_PER_MERCHANT = "3";
    resetEnvForTests();
    const capped = await cli("keys", "create", merchant.id);
    expect(capped).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("at most 3 active API keys; revoke one first"),
    });
  });

  it("bad input exits 1 with a readable message naming the field", async () => {
    const badPix = await cli("merchants", "create", "--company", "X", "--pix-key", "not-a-key");
    expect(badPix.code).toBe(1);
    expect(badPix.stdout).toBe("");
    expect(badPix.stderr).toContain("pixKey: must be a valid PIX key");

    const noCompany = await cli("merchants", "create");
    expect(noCompany.code).toBe(1);
    expect(noCompany.stderr).toContain("companyName: is required");

    const badBalance = await cli("merchants", "create", "--company", "X", "--opening-balance", "12.50");
    expect(badBalance.code).toBe(1);
    expect(badBalance.stderr).toContain("openingBalance");

    const noPassword = await cli("merchants", "create", "--company", "X", "--email", "x@example.com");
    expect(noPassword.code).toBe(1);
    expect(noPassword.stderr).toContain("password: is required when email is given");
  });

  it("unknown merchant, unknown command or option exits 1", async () => {
    const unknown = await cli(
      "merchants",
      "update",
      "00000000-0000-4000-8000-000000000000",
      "--account-type",
      "verified",
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Merchant not found");

    const command = await cli("merchants", "delete");
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('unknown command "merchants delete"');

    const option = await cli("merchants", "list", "--company", "X");
    expect(option.code).toBe(1);
    expect(option.stderr).toContain("--company");

    const flag = await cli("merchants", "create", "--company", "X", "--colour", "blue");
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("--colour");
  });

  it("help prints the usage and exits 0", async () => {
    const res = await cli("help");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("merchants create --company <name>");
  });

  it("recon: lists mismatches as JSON; a source this server cannot read, a bad day or an unknown mismatch exits 1 saying so", async () => {
    expect(await cliJson("recon", "mismatches")).toHaveProperty("mismatches");
    const sandbox = await cli("recon", "run", "--source", "exchange");
    expect(sandbox.code).toBe(1);
    expect(sandbox.stderr).toContain("exchange is not reconciled on this server");
    const badDay = await cli("recon", "run", "--day", "2026-13-01");
    expect(badDay.code).toBe(1);
    expect(badDay.stderr).toContain("--day must be a calendar day");
    const unknown = await cli("recon", "resolve", "00000000-0000-4000-8000-000000000000", "--note", "checked");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No open reconciliation mismatch");
  });
});
