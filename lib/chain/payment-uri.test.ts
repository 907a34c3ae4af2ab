import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { depositTransferUri } from "./payment-uri";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetEnvForTests();
});

const deposit = {
  tokenAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  network: "polygon",
  address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  cryptoAmount: "18.518519",
  receivedAmount: "0",
  tokenDecimals: 6,
};

describe("EIP-681 request for a deposit", () => {
  it("names the token, the chain, the recipient and the amount due in base units", () => {
    expect(depositTransferUri(deposit)).toBe(
      `ethereum:${deposit.tokenAddress}@137/transfer?address=${deposit.address}&uint256=18518519`,
    );
  });

  it("uses the chain id transactions are signed for when EVM_CHAIN_ID_* overrides it (a local node, a testnet)", () => {
    process.env.EVM_CHAIN_ID_POLYGON = "31337";
    resetEnvForTests();
    expect(depositTransferUri(deposit)).toContain("@31337/transfer");
  });

  it("asks only for what is still due after a partial payment, never a negative amount", () => {
    expect(depositTransferUri({ ...deposit, receivedAmount: "10" })).toMatch(/&uint256=8518519$/);
    expect(depositTransferUri({ ...deposit, receivedAmount: "20" })).toMatch(/&uint256=0$/);
    expect(depositTransferUri({ ...deposit, tokenDecimals: 18, cryptoAmount: "1.5", receivedAmount: "0.25" })).toMatch(
      /&uint256=1250000000000000000$/,
    );
  });
});
