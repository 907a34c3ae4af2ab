import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "@playwright/test";
import { sandbox } from "@pixcrypto/sdk/sandbox";
import { eventually, test } from "./support.ts";

// examples/shop, run as its README says (tsx server.ts, the SDK as its dependency), against the built
// app: a sale creates a PIX order, shows its QR code, and is marked paid by the verified webhook.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const shopDir = path.join(root, "examples", "shop");

/** What `npm install` in examples/shop does for its file: dependency: a link to the package. */
function linkSdk() {
  const link = path.join(shopDir, "node_modules", "@pixcrypto", "sdk");
  fs.mkdirSync(path.dirname(link), { recursive: true });
  if (!fs.existsSync(link)) fs.symlinkSync(path.join(root, "sdk"), link, "dir");
}

test("the example shop sells for PIX: QR code shown, payment's webhook verified, sale paid", async ({
  merchant,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const { apiKey, client } = await merchant();
  linkSdk();
  let shop: ChildProcess | undefined;
  let output = "";
  try {
    shop = spawn(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "server.ts"], {
      cwd: shopDir,
      env: {
        ...process.env,
        PIXCRYPTO_API_KEY: apiKey,
        PIXCRYPTO_BASE_URL: baseURL!,
        SHOP_PORT: process.env.SHOP_PORT ?? "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    shop.stdout!.on("data", (c: Buffer) => (output += c));
    shop.stderr!.on("data", (c: Buffer) => (output += c));
    const shopUrl = await eventually(
      "the shop to listen",
      async () => /shop listening on (\S+)/.exec(output)?.[1] ?? (shop!.exitCode !== null ? "exited" : null),
      (u) => u !== null,
    );
    expect(shopUrl, output).not.toBe("exited");
    expect(output).toMatch(/webhook endpoint \S+ registered/);

    const bought = await fetch(`${shopUrl}/checkout`, { method: "POST", redirect: "manual" });
    expect(bought.status).toBe(303);
    const salePath = bought.headers.get("location")!;
    const sale = await (await fetch(shopUrl + salePath, { headers: { accept: "application/json" } })).json();
    expect(sale).toMatchObject({ status: "awaiting payment", brCode: expect.stringMatching(/^000201/) });
    const page = await (await fetch(shopUrl + salePath)).text();
    expect(page).toContain(`<img src="${sale.qrCodeUrl}"`);
    const qr = await fetch(sale.qrCodeUrl);
    expect(qr.headers.get("content-type")).toBe("image/png");

    // A forged notification is refused and changes nothing.
    const forged = await fetch(`${shopUrl}/webhooks/pixcrypto`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_x",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: JSON.stringify({
        id: "x",
        type: "order.status_changed",
        createdAt: new Date().toISOString(),
        data: { id: sale.orderId, status: "COMPLETED" },
      }),
    });
    expect(forged.status).toBe(400);

    // The buyer pays (the sandbox plays the bank), and the shop learns it from the webhook alone.
    await sandbox(client).payOrder(sale.orderId);
    await eventually(
      "the sale to be paid",
      async () => (await (await fetch(shopUrl + salePath, { headers: { accept: "application/json" } })).json()).status,
      (s) => s === "paid",
    );
    expect(await (await fetch(shopUrl + salePath)).text()).toContain("Pagamento recebido");
    expect(output).toContain(`sale ${sale.id} paid`);
  } finally {
    shop?.kill();
  }
});
