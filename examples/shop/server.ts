// A small shop that sells one product for PIX, using nothing but @pixcrypto/sdk and Node's http server:
//
//   1. POST /checkout creates a PIX order for the sale (the SDK sends it with an Idempotency-Key, so a
//      retried request cannot charge twice) and sends the buyer to the sale's page;
//   2. GET /sales/{id} shows the QR code (the API's PNG) and the copy-and-paste BR Code;
//   3. POST /webhooks/pixcrypto receives the payment's event, verifies its signature, and marks the
//      sale paid. The page shows it on its next refresh.
//
// Run against a sandbox server (npm start in the repository root prints a demo key):
//
//   PIXCRYPTO_API_KEY=sk_test_… PIXCRYPTO_BASE_URL=http://localhost:3000 npm start
//
// then pay from another shell with the sandbox helper: the sale's page prints the command.
// Sales live in memory: a real shop keeps them in its database.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { PixCrypto, verifyWebhook, WebhookVerificationError, type WebhookEvent } from "@pixcrypto/sdk";

const PRODUCT = { name: "Camiseta PixCrypto", priceBrl: 49.9 };

type Sale = {
  id: string;
  orderId: string;
  paymentLinkId: string;
  brCode: string;
  status: "awaiting payment" | "paid" | "cancelled";
  paidAt?: string;
};

const apiKey = process.env.PIXCRYPTO_API_KEY;
const baseUrl = process.env.PIXCRYPTO_BASE_URL ?? "http://localhost:3000";
if (!apiKey) {
  console.error("Set PIXCRYPTO_API_KEY (the sandbox server prints a demo key at start-up)");
  process.exit(1);
}

const pix = new PixCrypto({ apiKey, baseUrl });
const sales = new Map<string, Sale>();
/** Event ids already handled: a delivery can come more than once. */
const handled = new Set<string>();
let webhookSecret = process.env.PIXCRYPTO_WEBHOOK_SECRET ?? "";

async function checkout(): Promise<Sale> {
  const id = randomUUID();
  const { pixOrder, qrCode } = await pix.orders.createPix({
    value: PRODUCT.priceBrl,
    orderId: id,
    name: "Cliente da loja",
    metadata: { product: PRODUCT.name },
  });
  const sale: Sale = {
    id,
    orderId: pixOrder._id,
    paymentLinkId: pixOrder.paymentLinkId,
    brCode: qrCode,
    status: "awaiting payment",
  };
  sales.set(id, sale);
  return sale;
}

/** What the shop does with an event it has verified. */
function onEvent(event: WebhookEvent): void {
  if (handled.has(event.id)) return;
  handled.add(event.id);
  if (event.type !== "order.status_changed") return;
  // The order's reference carries our own sale id (sent as orderId): no map from the API's ids needed.
  const sale = sales.get(event.data.reference.orderId ?? "");
  if (!sale) return;
  if (event.data.status === "COMPLETED") {
    sale.status = "paid";
    sale.paidAt = event.data.paidAt;
    console.log(`sale ${sale.id} paid (order ${sale.orderId}, R$ ${event.data.value})`);
  } else if (event.data.status === "CANCELLED") {
    sale.status = "cancelled";
  }
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://shop");
    if (req.method === "POST" && url.pathname === "/webhooks/pixcrypto") {
      // The signature is over the exact bytes sent: read the raw body, never a re-serialised object.
      const body = await rawBody(req);
      let event: WebhookEvent;
      try {
        event = verifyWebhook(body, req.headers, webhookSecret);
      } catch (err) {
        if (err instanceof WebhookVerificationError) return send(res, 400, "text/plain", "invalid signature");
        throw err;
      }
      onEvent(event);
      return send(res, 200, "text/plain", "ok");
    }
    if (req.method === "POST" && url.pathname === "/checkout") {
      const sale = await checkout();
      res.writeHead(303, { location: `/sales/${sale.id}` }).end();
      return;
    }
    const match = /^\/sales\/([\w-]+)$/.exec(url.pathname);
    if (req.method === "GET" && match) {
      const sale = sales.get(match[1]!);
      if (!sale) return send(res, 404, "text/plain", "no such sale");
      if (req.headers.accept?.includes("application/json"))
        return send(
          res,
          200,
          "application/json",
          JSON.stringify({ ...sale, qrCodeUrl: pix.public.qrCodeUrl(sale.paymentLinkId) }),
        );
      return send(res, 200, "text/html; charset=utf-8", salePage(sale));
    }
    if (req.method === "GET" && url.pathname === "/") return send(res, 200, "text/html; charset=utf-8", productPage());
    send(res, 404, "text/plain", "not found");
  } catch (err) {
    console.error(err);
    send(res, 500, "text/plain", "something went wrong");
  }
});

function productPage(): string {
  return page(
    PRODUCT.name,
    `<p>R$ ${brl(PRODUCT.priceBrl)}</p><form method="post" action="/checkout"><button>Comprar com PIX</button></form>`,
  );
}

function salePage(sale: Sale): string {
  if (sale.status === "paid")
    return page("Pagamento recebido", `<p>Obrigado! Pedido ${sale.id} pago em ${sale.paidAt}.</p>`);
  if (sale.status === "cancelled") return page("Pedido cancelado", `<p>O PIX não foi pago a tempo.</p>`);
  return page(
    "Pague com PIX",
    `<meta http-equiv="refresh" content="3">
     <p>R$ ${brl(PRODUCT.priceBrl)}: escaneie o QR code no app do seu banco, ou copie o código.</p>
     <img src="${escape(pix.public.qrCodeUrl(sale.paymentLinkId))}" alt="QR code PIX" width="240" height="240">
     <p><textarea readonly rows="4" cols="60">${escape(sale.brCode)}</textarea></p>
     <p><small>Sandbox: <code>curl -X POST ${escape(baseUrl)}/api/v1/sandbox/orders/${escape(sale.orderId)}/pay -H "Authorization: Bearer $PIXCRYPTO_API_KEY"</code></small></p>`,
  );
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1>${body}</html>`;
const brl = (n: number) => n.toFixed(2).replace(".", ",");
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function send(res: http.ServerResponse, status: number, type: string, body: string) {
  res.writeHead(status, { "content-type": type }).end(body);
}

function rawBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

server.listen(Number(process.env.SHOP_PORT ?? 4000), process.env.SHOP_HOST ?? "127.0.0.1", async () => {
  const { port } = server.address() as AddressInfo;
  const publicUrl = process.env.SHOP_PUBLIC_URL ?? `http://127.0.0.1:${port}`;
  if (!webhookSecret) {
    // No secret configured: register this shop's receiver now. The secret is shown only in this answer.
    const { webhook } = await pix.webhooks.create({
      url: `${publicUrl}/webhooks/pixcrypto`,
      description: "example shop",
    });
    webhookSecret = webhook.secret;
    console.log(`webhook endpoint ${webhook.id} registered for ${webhook.url}`);
  }
  console.log(`shop listening on ${publicUrl}`);
});
