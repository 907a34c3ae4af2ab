import { Transport, type RequestOptions, type TransportOptions } from "./transport.js";
import type { BodyOf, ResultOf } from "./types.js";

// The operator API (ADMIN_TOKEN; 404 on a server without one): provisioning merchants. Apart from the
// merchant's client because it is another credential with other powers. Creating a merchant takes no
// Idempotency-Key, so it is retried only after a 429 (refused before anything was done), never after
// a lost answer, which could create the merchant twice.

export class PixCryptoOperator {
  private readonly transport: Transport;

  constructor(options: Omit<TransportOptions, "credential"> & { adminToken: string }) {
    const { adminToken, ...rest } = options;
    if (!adminToken) throw new TypeError("adminToken is required");
    this.transport = new Transport({ ...rest, credential: { token: adminToken, header: "authorization" } });
  }

  readonly merchants = {
    /** POST /admin/merchants → 201 `{ merchant, apiKey }` (the key is shown only here). */
    create: (body: BodyOf<"postAdminMerchants">, opts?: RequestOptions): Promise<ResultOf<"postAdminMerchants">> =>
      this.transport.request(
        { operation: "postAdminMerchants", method: "POST", path: "/api/v1/admin/merchants", body, repeatable: "once" },
        opts,
      ),
    /** PATCH /admin/merchants/{id}: the account type. */
    update: (
      id: string,
      body: BodyOf<"patchAdminMerchantsId">,
      opts?: RequestOptions,
    ): Promise<ResultOf<"patchAdminMerchantsId">> =>
      this.transport.request(
        {
          operation: "patchAdminMerchantsId",
          method: "PATCH",
          path: "/api/v1/admin/merchants/{id}",
          params: { id },
          body,
          repeatable: "safe",
        },
        opts,
      ),
  };
}
