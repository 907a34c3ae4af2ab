CREATE TABLE "hot_wallet_float" (
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"balance" numeric(38, 18) NOT NULL,
	"minimum" numeric(38, 18) NOT NULL,
	"target" numeric(38, 18) NOT NULL,
	"below_since" timestamp (3) with time zone,
	"checked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hot_wallet_float_network_asset_pk" PRIMARY KEY("network","asset")
);
--> statement-breakpoint
ALTER TABLE "chain_txs" DROP CONSTRAINT "chain_txs_purpose";--> statement-breakpoint
ALTER TABLE "chain_txs" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "chain_txs" ADD COLUMN "held_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "waiting_reason" text;--> statement-breakpoint
ALTER TABLE "chain_txs" ADD CONSTRAINT "chain_txs_purpose" CHECK (purpose in ('withdrawal', 'refund', 'filler', 'treasury'));