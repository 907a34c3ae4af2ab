import { describe, expect, it } from "vitest";
import { jobRunnerStatementTimeoutMs } from "./queue";

// The job runner's sessions get a statement_timeout of their own (DB_JOB_STATEMENT_TIMEOUT_MS), so a
// deployment can give pg-boss's bulk maintenance longer than a request's bound, or less.

describe("the job runner's statement_timeout", () => {
  it("is DB_JOB_STATEMENT_TIMEOUT_MS when set, 0 meaning none", () => {
    expect(jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 30_000, DB_JOB_STATEMENT_TIMEOUT_MS: 900_000 })).toBe(
      900_000,
    );
    expect(jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 30_000, DB_JOB_STATEMENT_TIMEOUT_MS: 10_000 })).toBe(
      10_000,
    );
    expect(jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 30_000, DB_JOB_STATEMENT_TIMEOUT_MS: 0 })).toBe(0);
  });

  it("unset: five minutes, or the pool's when longer or none", () => {
    expect(
      jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 30_000, DB_JOB_STATEMENT_TIMEOUT_MS: undefined }),
    ).toBe(300_000);
    expect(
      jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 600_000, DB_JOB_STATEMENT_TIMEOUT_MS: undefined }),
    ).toBe(600_000);
    expect(jobRunnerStatementTimeoutMs({ DB_STATEMENT_TIMEOUT_MS: 0, DB_JOB_STATEMENT_TIMEOUT_MS: undefined })).toBe(0);
  });
});
