import { centavosToBrl } from "@/lib/money";
import type { InvoiceState, LightningProviderDetails } from "./types";

/** The spec's providerDetails when the provider could not be asked: `success: false` with our stored figures. */
export function storedDetails(state: InvoiceState, autoSettle: boolean): LightningProviderDetails {
  return {
    success: false,
    data: {
      id: state.id,
      name: state.name,
      status: state.status,
      currency: "BTC",
      created_at: Math.floor(state.createdAt.getTime() / 1000),
      fee: 0,
      notes: "",
      address: "",
      metadata: {},
      fiat_value: centavosToBrl(state.fiatCentavos),
      amount: state.satoshis,
      description: state.description,
      auto_settle: autoSettle,
      transactions: [],
    },
  };
}
