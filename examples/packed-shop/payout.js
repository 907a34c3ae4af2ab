// A PIX withdrawal of the shop's balance. `value` is integer centavos here (and only here: every other
// `value` of the API is BRL).
const { BadRequestError } = require("@pixcrypto/sdk");

/** @returns {Promise<{ ok: true, id: string } | { ok: false, reason: string }>} */
async function withdraw(pix, centavos, metadata) {
  try {
    const w = await pix.withdrawals.pixOut({ value: centavos, metadata });
    return { ok: true, id: w.id };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    // INSUFFICIENT BALANCE BY CODE: once error bodies carry a machine-readable `code` (issue 39, item 1),
    // tell "insufficient balance" from the other 400s here by `err.code`, not by the message's words.
    return { ok: false, reason: err.apiMessage };
  }
}

module.exports = { withdraw };
