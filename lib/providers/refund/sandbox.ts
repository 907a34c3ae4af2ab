import type { Refunder } from "./types";

/** The reason that makes a sandbox refund fail, so a merchant can exercise the failure path (docs/api.md#sandbox-helpers). */
export const SANDBOX_FAILING_REFUND_REASON = "sandbox-fail";

/**
 * Sandbox refunds complete at once, except with the failing reason. Nothing is kept: sending the same
 * refund again gives the same answer, so "never received" (null) is always a safe answer to a read.
 */
export const sandboxRefunder: Refunder = {
  async refund({ id, reason }) {
    if (reason === SANDBOX_FAILING_REFUND_REASON)
      return { status: "FAILED", providerRef: id, reason: "refused by the sandbox (reason: sandbox-fail)" };
    return { status: "COMPLETED", providerRef: id };
  },
  async readRefund() {
    return null;
  },
};
