import { describe, it, expect } from "vitest";
import { getAddress } from "viem";
import { ASSETS, CHAIN_IDS, NETWORKS, isAsset, isNetwork, tokenFor } from "./tokens";

describe("token table", () => {
  it("has the expected chain ids", () => {
    expect(CHAIN_IDS).toEqual({ eth: 1, bsc: 56, polygon: 137 });
  });

  it("stores every address EIP-55 checksummed", () => {
    for (const network of NETWORKS) {
      for (const asset of ASSETS) {
        const token = tokenFor(network, asset);
        if (token) expect(getAddress(token.address)).toBe(token.address);
      }
    }
  });

  it("has no Polygon BUSD and every other pair present", () => {
    expect(tokenFor("polygon", "BUSD")).toBeNull();
    const present = NETWORKS.flatMap((n) => ASSETS.map((a) => tokenFor(n, a))).filter((t) => t !== null);
    expect(present).toHaveLength(11);
  });

  it("uses native Polygon USDC, not bridged USDC.e", () => {
    expect(tokenFor("polygon", "USDC")).toEqual({
      address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
      decimals: 6,
    });
  });

  it("encodes decimals exactly as documented", () => {
    expect(tokenFor("eth", "USDT")?.decimals).toBe(6);
    expect(tokenFor("eth", "USDC")?.decimals).toBe(6);
    expect(tokenFor("eth", "DAI")?.decimals).toBe(18);
    expect(tokenFor("eth", "BUSD")?.decimals).toBe(18);
    for (const asset of ASSETS) expect(tokenFor("bsc", asset)?.decimals).toBe(18);
    expect(tokenFor("polygon", "USDT")?.decimals).toBe(6);
    expect(tokenFor("polygon", "DAI")?.decimals).toBe(18);
  });

  it("encodes the documented addresses", () => {
    expect(tokenFor("eth", "USDT")?.address).toBe("0xdAC17F958D2ee523a2206206994597C13D831ec7");
    expect(tokenFor("eth", "USDC")?.address).toBe("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48");
    expect(tokenFor("eth", "DAI")?.address).toBe("0x6B175474E89094C44Da98b954EedeAC495271d0F");
    expect(tokenFor("eth", "BUSD")?.address).toBe("0x4Fabb145d64652a948d72533023f6E7A623C7C53");
    expect(tokenFor("bsc", "USDT")?.address).toBe("0x55d398326f99059fF775485246999027B3197955");
    expect(tokenFor("bsc", "USDC")?.address).toBe("0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d");
    expect(tokenFor("bsc", "DAI")?.address).toBe("0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3");
    expect(tokenFor("bsc", "BUSD")?.address).toBe("0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56");
    expect(tokenFor("polygon", "USDT")?.address).toBe("0xc2132D05D31c914a87C6611C10748AEb04B58e8F");
    expect(tokenFor("polygon", "DAI")?.address).toBe("0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063");
  });

  it("returns copies that cannot corrupt the table", () => {
    const t = tokenFor("eth", "USDT");
    if (t) t.decimals = 99;
    expect(tokenFor("eth", "USDT")?.decimals).toBe(6);
  });

  it("guards network and asset names", () => {
    expect(isNetwork("eth")).toBe(true);
    expect(isNetwork("polygon")).toBe(true);
    expect(isNetwork("ETH")).toBe(false);
    expect(isNetwork("tron")).toBe(false);
    expect(isNetwork(1)).toBe(false);
    expect(isNetwork(undefined)).toBe(false);
    expect(isNetwork("toString")).toBe(false);
    expect(isAsset("USDT")).toBe(true);
    expect(isAsset("BUSD")).toBe(true);
    expect(isAsset("usdt")).toBe(false);
    expect(isAsset("BTC")).toBe(false);
    expect(isAsset(null)).toBe(false);
  });
});
