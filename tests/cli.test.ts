import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db";
import { merchants } from "@/db/schema";
import { authenticateMerchant } from "@/lib/identity/api-keys/authenticate";
import { testDatabaseUrl } from "./support/database";

// Runs the operator CLI as an operator would, as a separate process against the test database.

const ROOT = path.resolve(__dirname, "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

type CliResult = { code: number; stdout: string; stderr: string };

async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, ["scripts/cli.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), PAYMENTS_MODE: "sandbox", LOG_LEVEL: "warn" },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function cliJson(...args: string[]) {
  const res = await cli(...args);
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout);
}

const keyRequest = (key: string) =>
  new Request("http://localhost:3000/api/v1/account", { headers: { authorization: `Bearer ${key}` } });

describe("npm run cli", () => {
  it("merchants create → JSON { merchant, apiKey }, with a key that authenticates", async () => {
    const out = await cliJson(
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
    expect(out.merchant).toEqual({
      id: expect.any(String),
      companyName: "Loja CLI",
      pixKey: "+5511987654321",
      accountType: "verified",
      balance: 2500,
    });
    expect(out.apiKey).toMatch(/^sk_test_/);
    expect((await authenticateMerchant(keyRequest(out.apiKey))).id).toBe(out.merchant.id);
  });

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
    // Seven processes, each starting tsx: seconds apiece on a loaded machine.
  }, 120_000);

  it("keys create --scopes makes a key with exactly those; unknown scopes and a merchant at its key cap are refused with a message", async () => {
    const { merchant } = await cliJson("merchants", "create", "--company", "Escopos CLI");
    const created = await cliJson("keys", "create", merchant.id, "--name", "leitura", "--scopes", "read,payments");
    expect(created.apiKey.scopes).toEqual(["read", "payments"]);
    const everything = await cliJson("keys", "create", merchant.id, "--name", "tudo");
    expect(everything.apiKey.scopes).toEqual(["read", "payments", "refunds", "withdrawals"]);
    const unknown = await cli("keys", "create", merchant.id, "--scopes", "read,admin");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--scopes must list one or more of read, payments, refunds, withdrawals");
    const capped = await promisify(execFile)(TSX, ["scripts/cli.ts", "keys", "create", merchant.id], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        PAYMENTS_MODE: "sandbox",
        LOG_LEVEL: "warn",
        MAX_API_KEYS_PER_MERCHANT: "3",
      },
    }).catch((err: { code: number; stderr: string }) => err);
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
