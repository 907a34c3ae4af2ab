// The sandbox's keys: both come from the public Hardhat/Anvil test mnemonic
// "test test test test test test test test test test test junk", published in every Ethereum dev
// tool, so nothing sent to or from them is ever real money, and nobody can mistake them for a
// merchant's wallet. They let the sandbox produce genuinely signed transactions and genuinely
// derived addresses. Sandbox start-up refuses to pair them with a main-net node (lib/chain/config.ts).

/** Private key of account index 1 (m/44'/60'/0'/0/1): signs the sandbox's hot-wallet transactions. */
export const SANDBOX_HOT_WALLET_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

/** Account-level xpub (m/44'/60'/0'): sandbox deposit addresses derive from it. */
export const SANDBOX_DEPOSIT_XPUB =
  "xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP";

/**
 * Account-level xprv of the same mnemonic, SANDBOX_DEPOSIT_XPUB's private half: the sandbox's sweeper
 * signs for its deposit addresses with it when no DEPOSIT_XPRV_FILE is given (lib/chain/deposit-keys.ts).
 */
export const SANDBOX_DEPOSIT_XPRV =
  "xprv9yeny6n2dNUokQFykGoZU6BDLeKbEBUoBeCFe2VF6MXdrHrprMYRc4tddncDRxrJCy7GtPDk68zRcgWtGFveqdCV5NyhZwVgMoZVbTm78vx";
