import QRCode from "qrcode";
import { endpoint } from "@/lib/api/handler";
import { messageBody } from "@/lib/api/error-body";
import { json } from "@/lib/api/respond";
import { publicPayment } from "./payment";

/** GET /api/v1/public/payments/{paymentLinkId}: the payer's view, no auth. */
export const publicPaymentHandler = endpoint({
  auth: "public",
  errorBody: messageBody,
  async handle({ params }) {
    return json(200, { payment: await publicPayment(params.paymentLinkId) });
  },
});

/** GET /api/v1/public/payments/{paymentLinkId}/qr.png: the exchange-wallet `qrCodeLink`, and every other kind's QR. */
export const publicPaymentQrHandler = endpoint({
  auth: "public",
  errorBody: messageBody,
  async handle({ params }) {
    const p = await publicPayment(params.paymentLinkId);
    const png = await QRCode.toBuffer(p.payment.qrContent, { type: "png", errorCorrectionLevel: "M", margin: 2, width: 360 });
    return new Response(new Uint8Array(png), {
      status: 200,
      headers: { "content-type": "image/png", "cache-control": "public, max-age=300", "content-length": String(png.length) },
    });
  },
});
