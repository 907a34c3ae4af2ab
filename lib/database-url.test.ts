import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { parseDatabaseUrl, redactDatabaseUrl, targetSessionAttrs } from "./database-url";
import { parseEnv } from "./env";

// A DATABASE_URL naming several hosts is how the app follows a promoted standby without a proxy:
// configuration must accept it, and read it as the driver does.

const MULTI =
  "postgres://app:s3cret@10.0.0.1:5432,db-2.internal:5433,[fd00::3]/payments?target_session_attrs=read-write&sslmode=require";

describe("database URLs", () => {
  it("reads a list of hosts, each with its port (5432 when none)", () => {
    const parsed = parseDatabaseUrl(MULTI);
    expect(parsed).toMatchObject({
      hosts: [
        { host: "10.0.0.1", port: 5432 },
        { host: "db-2.internal", port: 5433 },
        { host: "[fd00::3]", port: 5432 },
      ],
      database: "payments",
      user: "app",
    });
    expect(targetSessionAttrs(MULTI)).toBe("read-write");
    expect(targetSessionAttrs("postgres://h/db")).toBeNull();
  });

  it("is read by the driver the same way", () => {
    const sql = postgres(
      "postgres://app:s3cret@10.0.0.1:5432,db-2.internal:5433/payments?target_session_attrs=primary",
    );
    expect(sql.options.host).toEqual(["10.0.0.1", "db-2.internal"]);
    expect(sql.options.port).toEqual([5432, 5433]);
    expect(sql.options.database).toBe("payments");
    expect((sql.options as unknown as { target_session_attrs: string }).target_session_attrs).toBe("primary");
  });

  it("refuses what is not a PostgreSQL URL, a bad host or port, and target_session_attrs the driver lacks", () => {
    expect(parseDatabaseUrl("mysql://h/db")).toEqual({ error: "must be a postgres:// or postgresql:// URL" });
    expect(parseDatabaseUrl("postgres://h1,,h2/db")).toEqual({ error: 'has an invalid host ""' });
    expect(parseDatabaseUrl("postgres://h1:99999/db")).toEqual({ error: 'has an invalid port in "h1:99999"' });
    expect(parseDatabaseUrl("postgres://h1/db?target_session_attrs=any")).toMatchObject({
      error: expect.stringMatching(/target_session_attrs=any is not supported/),
    });
  });

  it("hides the password", () => {
    expect(redactDatabaseUrl(MULTI)).toBe(
      "postgres://app:***@10.0.0.1:5432,db-2.internal:5433,[fd00::3]/payments?target_session_attrs=read-write&sslmode=require",
    );
  });
});

describe("the database settings at start-up", () => {
  it("accept a multi-host DATABASE_URL, which zod's URL check refused", () => {
    expect(parseEnv({ DATABASE_URL: MULTI }).DATABASE_URL).toBe(MULTI);
    expect(() => parseEnv({ DATABASE_URL: "not a url" })).toThrow(
      /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  it("refuse a target_session_attrs that could write to a standby", () => {
    expect(() => parseEnv({ DATABASE_URL: "postgres://h1,h2/db?target_session_attrs=prefer-standby" })).toThrow(
      /DATABASE_URL: target_session_attrs=prefer-standby could settle on a standby/,
    );
    expect(() => parseEnv({ DATABASE_URL: "postgres://h1,h2/db?target_session_attrs=primary" })).not.toThrow();
    // A replica URL may ask for a standby.
    expect(() =>
      parseEnv({
        DATABASE_URL: "postgres://h1/db",
        DATABASE_REPLICA_URL: "postgres://r1,r2/db?target_session_attrs=standby",
      }),
    ).not.toThrow();
  });

  it("DB_POOLER=transaction needs both the pooler's URL and PostgreSQL's own", () => {
    expect(() => parseEnv({ DB_POOLER: "transaction", DATABASE_URL: "postgres://pgbouncer:6432/db" })).toThrow(
      /DATABASE_DIRECT_URL: is required once DB_POOLER=transaction/,
    );
    expect(() => parseEnv({ DB_POOLER: "transaction" })).toThrow(
      /DATABASE_URL: is required once DB_POOLER=transaction/,
    );
    const e = parseEnv({
      DB_POOLER: "transaction",
      DATABASE_URL: "postgres://pgbouncer:6432/db",
      DATABASE_DIRECT_URL: "postgres://h1,h2/db",
    });
    expect(e.DB_POOLER).toBe("transaction");
    expect(parseEnv({}).DB_POOLER).toBe("none");
  });

  it("a replica or a direct URL needs DATABASE_URL (the embedded database has neither)", () => {
    expect(() => parseEnv({ DATABASE_REPLICA_URL: "postgres://r/db" })).toThrow(
      /DATABASE_REPLICA_URL: needs DATABASE_URL/,
    );
    expect(() => parseEnv({ DATABASE_DIRECT_URL: "postgres://d/db" })).toThrow(
      /DATABASE_DIRECT_URL: needs DATABASE_URL/,
    );
    expect(
      parseEnv({ DATABASE_URL: "postgres://h/db", DATABASE_REPLICA_URL: "postgres://r/db" }).REPLICA_MAX_LAG_SECONDS,
    ).toBe(5);
  });
});
