CREATE TABLE "unapplied_resolutions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"transfer_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"credited_centavos" bigint,
	"to_address" text,
	"fee_amount" numeric(38, 18),
	"sent_amount" numeric(38, 18),
	"chain_tx_id" uuid,
	"tx_hash" text,
	"failure_reason" text,
	"user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "unapplied_resolutions_kind" CHECK (kind in ('accept', 'return')),
	CONSTRAINT "unapplied_resolutions_status" CHECK (status in ('PENDING', 'COMPLETED', 'FAILED'))
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_kind";--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD CONSTRAINT "unapplied_resolutions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD CONSTRAINT "unapplied_resolutions_order_id_onchain_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."onchain_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD CONSTRAINT "unapplied_resolutions_transfer_id_chain_transfers_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."chain_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "unapplied_resolutions_transfer" ON "unapplied_resolutions" USING btree ("transfer_id");--> statement-breakpoint
CREATE INDEX "unapplied_resolutions_order" ON "unapplied_resolutions" USING btree ("order_id");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_kind" CHECK (kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit', 'refund_debit', 'withdrawal_debit', 'withdrawal_reversal', 'refund_reversal', 'adjustment', 'med_debit', 'unapplied_credit'));