import { saoPauloDay } from "@/lib/day-range";
import { newPixTxid } from "@/lib/ids";
import { amountDue } from "@/lib/pix/due-amount";
import type { DueChargeProvider } from "./due-charges";
import { receiverEncoder } from "./sandbox";

// The sandbox's charges with a due date: nothing leaves the server. A charge is "made" at once, its
// code is a static BR Code for the service's receiving key carrying the day's amount and the txid
// (the sandbox PSP computes the day's amount as the live PSP's payload would, lib/pix/due-amount.ts),
// and a batch's charges are all made. Payments come from the sandbox helpers (lib/sandbox).

const SANDBOX_PROVIDER = "sandbox-pix";

const codeForDay = (txid: string, amountCentavos: number, description?: string) =>
  receiverEncoder()({ amountCentavos, txid, description });

export const sandboxDueCharges: DueChargeProvider = {
  name: SANDBOX_PROVIDER,
  // A static code's txid (field 62-05) holds at most 25 characters.
  newTxid: newPixTxid,
  async create({ txid, terms, description }) {
    const due = amountDue(terms, saoPauloDay());
    const amount = due.payable && due.totalCentavos > 0 ? due.totalCentavos : terms.originalCentavos;
    return { txid, brcode: codeForDay(txid, amount, description), provider: SANDBOX_PROVIDER, location: null };
  },
  async read() {
    return null;
  },
  async cancel() {
    return "removed";
  },
  // Made at once, every one of them.
  async createBatch({ items }) {
    return Promise.all(
      items.map(async (item) => ({
        txid: item.txid,
        status: "CRIADA" as const,
        charge: await sandboxDueCharges.create(item),
      })),
    );
  },
  async readBatch() {
    return [];
  },
  codeForDay,
};
