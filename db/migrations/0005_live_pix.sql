CREATE TABLE "order_refunds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"value_centavos" bigint NOT NULL,
	"reason" text,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"provider" text NOT NULL,
	"payment_ref" text NOT NULL,
	"provider_ref" text,
	"sent_at" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"failure_reason" text,
	"lease_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp (3) with time zone,
	CONSTRAINT "order_refunds_status" CHECK (status in ('PENDING', 'COMPLETED', 'FAILED')),
	CONSTRAINT "order_refunds_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "pix_receipts" (
	"end_to_end_id" text PRIMARY KEY NOT NULL,
	"txid" text,
	"order_id" uuid,
	"merchant_id" uuid,
	"value_centavos" bigint NOT NULL,
	"paid_at" timestamp (3) with time zone NOT NULL,
	"applied" boolean NOT NULL,
	"unapplied_reason" text,
	"source" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pix_receipts_reason" CHECK (applied = (unapplied_reason is null)),
	CONSTRAINT "pix_receipts_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "provider_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"position" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_kind";--> statement-breakpoint
ALTER TABLE "order_refunds" ADD CONSTRAINT "order_refunds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_refunds" ADD CONSTRAINT "order_refunds_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_receipts" ADD CONSTRAINT "pix_receipts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_receipts" ADD CONSTRAINT "pix_receipts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_refunds_order" ON "order_refunds" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "order_refunds_open" ON "order_refunds" USING btree ("created_at") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "pix_receipts_order" ON "pix_receipts" USING btree ("order_id");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_kind" CHECK (kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit', 'refund_debit', 'withdrawal_debit', 'withdrawal_reversal', 'refund_reversal', 'adjustment'));