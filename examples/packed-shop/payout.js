// A PIX withdrawal of the shop's balance. `value` is integer centavos here (and only here: every other
// `value` of the API is BRL).
const { BadRequestError } = require("@pixcrypto/sdk");

/** @returns {Promise<{ ok: true, id: string } | { ok: false, reason: string, retryLater: boolean }>} */
async function withdraw(pix, centavos, metadata) {
  try {
    const w = await pix.withdrawals.pixOut({ value: centavos, metadata });
    return { ok: true, id: w.id };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    // Told apart by its code, never by the message's words: a balance too low now may cover it tomorrow,
    // while any other refusal (a bad key, a daily limit) needs a person.
    return { ok: false, reason: err.apiMessage, retryLater: err.code === "insufficient_balance" };
  }
}

module.exports = { withdraw };
