CREATE TABLE "recipient_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"value_centavos" bigint NOT NULL,
	"pix_key" text NOT NULL,
	"pix_key_type" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"provider_ref" text,
	"failure_reason" text,
	"completed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recipient_payouts_status" CHECK (status in ('PENDING', 'COMPLETED', 'FAILED')),
	CONSTRAINT "recipient_payouts_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
ALTER TABLE "pix_payouts" DROP CONSTRAINT "pix_payouts_purpose";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_resource_type";--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "status" text DEFAULT 'ACTIVE' NOT NULL;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "recipient_payouts" ADD CONSTRAINT "recipient_payouts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_payouts" ADD CONSTRAINT "recipient_payouts_recipient_id_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."recipients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recipient_payouts_recipient" ON "recipient_payouts" USING btree ("recipient_id","created_at","id");--> statement-breakpoint
ALTER TABLE "pix_payouts" ADD CONSTRAINT "pix_payouts_purpose" CHECK (purpose in ('withdrawal', 'crypto_pix', 'recipient_payout'));--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_resource_type" CHECK (resource_type in ('order', 'onchain_order', 'crypto_pix_payment', 'withdrawal', 'refund', 'webhook_endpoint', 'webhook_delivery', 'chain_transfer', 'invoice', 'invoice_batch', 'payment_link', 'subscription', 'recipient', 'recipient_payout'));--> statement-breakpoint
ALTER TABLE "recipients" ADD CONSTRAINT "recipients_status" CHECK (status in ('ACTIVE', 'DISABLED'));