// The shop's webhook receiver: verify, then act on the shop's own sale, found by the id the shop gave the
// order (`orderId`, echoed in `event.data.reference`). Sales live in whatever store the shop has (here a Map).
const { verifyWebhook } = require("@pixcrypto/sdk");

/** @param {{ secret: string, sales: Map<string, { status: string, paidAt?: string, metadata?: Record<string, string> }> }} shop */
function createReceiver({ secret, sales }) {
  const handled = new Set(); // a delivery can come more than once: dedupe on the event id
  /** @returns {number} the HTTP status to answer */
  return function receive(rawBody, headers) {
    let event;
    try {
      event = verifyWebhook(rawBody, headers, secret);
    } catch {
      return 400;
    }
    if (handled.has(event.id)) return 200;
    handled.add(event.id);
    if (event.type !== "order.status_changed") return 200; // ignore types this shop does not handle
    const sale = sales.get(event.data.reference.orderId);
    if (!sale) return 200;
    if (event.data.status === "COMPLETED") {
      sale.status = "paid";
      sale.paidAt = event.data.paidAt;
      sale.metadata = event.data.metadata;
    } else if (event.data.status === "CANCELLED") {
      sale.status = "cancelled";
    }
    return 200;
  };
}

module.exports = { createReceiver };
