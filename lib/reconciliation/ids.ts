/** A uuid as we give it to providers that take no dashes (payout and refund ids). */
export const noDashes = (id: string) => id.replace(/-/g, "");
