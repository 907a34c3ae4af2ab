CREATE TABLE "sweeps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"network" text NOT NULL,
	"wallet_index" integer NOT NULL,
	"address" text NOT NULL,
	"asset" text NOT NULL,
	"token_address" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"to_address" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"gas_chain_tx_id" uuid,
	"chain_tx_id" uuid NOT NULL,
	"gas_sent_wei" numeric(78, 0) DEFAULT '0' NOT NULL,
	"fee_wei" numeric(78, 0),
	"gas_left_wei" numeric(78, 0),
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	CONSTRAINT "sweeps_status" CHECK (status in ('pending', 'swept', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "chain_txs" DROP CONSTRAINT "chain_txs_purpose";--> statement-breakpoint
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_wallet_index_deposit_addresses_wallet_index_fk" FOREIGN KEY ("wallet_index") REFERENCES "public"."deposit_addresses"("wallet_index") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sweeps_pending" ON "sweeps" USING btree ("created_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "sweeps_address" ON "sweeps" USING btree ("network",lower("address"));--> statement-breakpoint
ALTER TABLE "chain_txs" ADD CONSTRAINT "chain_txs_purpose" CHECK (purpose in ('withdrawal', 'refund', 'filler', 'treasury', 'sweep_gas', 'sweep'));