CREATE TABLE "crypto_pix_invoices" (
	"payment_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"payment_hash" text NOT NULL,
	"preimage" text NOT NULL,
	"satoshis" bigint NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"accepted_at" timestamp (3) with time zone,
	"action" text,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ALTER COLUMN "token_address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ALTER COLUMN "token_decimals" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ALTER COLUMN "wallet_index" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_pix_invoices" ADD CONSTRAINT "crypto_pix_invoices_payment_id_crypto_pix_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."crypto_pix_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_pix_invoices_hash" ON "crypto_pix_invoices" USING btree ("payment_hash");--> statement-breakpoint
CREATE INDEX "crypto_pix_invoices_pending" ON "crypto_pix_invoices" USING btree ("created_at") WHERE action is not null or state in ('open', 'accepted');