ALTER TABLE "crypto_pix_invoices" ADD COLUMN "htlc_expiry_height" integer;--> statement-breakpoint
ALTER TABLE "crypto_pix_invoices" ADD COLUMN "accept_height" integer;--> statement-breakpoint
ALTER TABLE "crypto_pix_invoices" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "crypto_pix_invoices" ADD COLUMN "attention_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "order_refunds" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "order_refunds" ADD COLUMN "attention_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "pix_payouts" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "pix_payouts" ADD COLUMN "attention_at" timestamp (3) with time zone;