CREATE TABLE "chain_tx_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_tx_id" uuid NOT NULL,
	"kind" text DEFAULT 'payment' NOT NULL,
	"hash" text NOT NULL,
	"raw_transaction" text NOT NULL,
	"max_fee_per_gas" numeric(78, 0) NOT NULL,
	"max_priority_fee_per_gas" numeric(78, 0) NOT NULL,
	"broadcast_at" timestamp (3) with time zone,
	"broadcast_block" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_tx_attempts_kind" CHECK (kind in ('payment', 'cancellation'))
);
--> statement-breakpoint
CREATE TABLE "chain_txs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"purpose" text NOT NULL,
	"owner_kind" text,
	"owner_id" uuid,
	"transfer_id" uuid,
	"network" text NOT NULL,
	"nonce_scope" text NOT NULL,
	"from_address" text NOT NULL,
	"nonce" integer NOT NULL,
	"token_address" text,
	"to_address" text NOT NULL,
	"amount" numeric(38, 18),
	"amount_base_units" numeric(78, 0),
	"status" text DEFAULT 'pending' NOT NULL,
	"mined_hash" text,
	"failure_reason" text,
	"attention" text,
	"lease_until" timestamp (3) with time zone,
	"checked_at" timestamp (3) with time zone,
	"decided_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_txs_purpose" CHECK (purpose in ('withdrawal', 'refund', 'filler')),
	CONSTRAINT "chain_txs_status" CHECK (status in ('pending', 'confirmed', 'reverted', 'superseded'))
);
--> statement-breakpoint
CREATE TABLE "deployment_marks" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pix_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"purpose" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"pix_key" text,
	"brcode" text,
	"value_centavos" bigint NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"provider" text,
	"provider_ref" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"failure_reason" text,
	"lease_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "pix_payouts_status" CHECK (status in ('created', 'processing', 'completed', 'failed')),
	CONSTRAINT "pix_payouts_purpose" CHECK (purpose in ('withdrawal', 'crypto_pix')),
	CONSTRAINT "pix_payouts_destination" CHECK ((pix_key is not null) <> (brcode is not null)),
	CONSTRAINT "pix_payouts_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "sandbox_pix_payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"destination" text NOT NULL,
	"value_centavos" bigint NOT NULL,
	"status" text NOT NULL,
	"end_to_end_id" text NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chain_cursors" ADD COLUMN "block_time" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "chain_transfers" ADD COLUMN "block_time" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "chain_transfers" ADD COLUMN "refund_status" text;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ADD COLUMN "refund_status" text;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ADD COLUMN "paid_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "chain_tx_attempts" ADD CONSTRAINT "chain_tx_attempts_chain_tx_id_chain_txs_id_fk" FOREIGN KEY ("chain_tx_id") REFERENCES "public"."chain_txs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_payouts" ADD CONSTRAINT "pix_payouts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chain_tx_attempts_hash" ON "chain_tx_attempts" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "chain_tx_attempts_tx" ON "chain_tx_attempts" USING btree ("chain_tx_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "chain_txs_nonce" ON "chain_txs" USING btree ("nonce_scope","nonce");--> statement-breakpoint
CREATE INDEX "chain_txs_owner" ON "chain_txs" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "chain_txs_pending" ON "chain_txs" USING btree ("created_at") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "pix_payouts_owner" ON "pix_payouts" USING btree ("purpose","owner_id");--> statement-breakpoint
CREATE INDEX "pix_payouts_open" ON "pix_payouts" USING btree ("created_at") WHERE status in ('created', 'processing');--> statement-breakpoint
-- Data carried over: what was in flight before this migration is followed by the new machinery.
-- On-chain withdrawals become chain transactions (their nonce scope is not recorded on the row: a
-- scope of their own keeps them apart from the counts kept from now on).
INSERT INTO "chain_txs" ("id", "purpose", "owner_kind", "owner_id", "network", "nonce_scope", "from_address", "nonce", "token_address", "to_address", "amount", "status", "mined_hash", "failure_reason", "decided_at", "created_at", "updated_at")
SELECT gen_random_uuid(), 'withdrawal', 'withdrawal', w."id", w."network", 'legacy:' || w."network" || ':' || w."id", '', w."nonce", w."token_address", w."to_address", w."token_amount",
  CASE w."status" WHEN 'COMPLETED' THEN 'confirmed' WHEN 'FAILED' THEN 'reverted' ELSE 'pending' END,
  CASE WHEN w."status" = 'COMPLETED' THEN w."tx_hash" END, w."failure_reason", w."completed_at", w."created_at", w."updated_at"
FROM "withdrawals" w WHERE w."kind" = 'onchain' AND w."raw_transaction" IS NOT NULL AND w."nonce" IS NOT NULL;--> statement-breakpoint
INSERT INTO "chain_tx_attempts" ("chain_tx_id", "hash", "raw_transaction", "max_fee_per_gas", "max_priority_fee_per_gas", "broadcast_at", "created_at")
SELECT c."id", w."tx_hash", w."raw_transaction", 0, 0, w."created_at", w."created_at"
FROM "chain_txs" c JOIN "withdrawals" w ON w."id" = c."owner_id" WHERE c."nonce_scope" LIKE 'legacy:%';--> statement-breakpoint
-- PIX payouts not yet final: the withdrawal's (or payment's) own id was the reference sent before, so it stays the idempotent id.
INSERT INTO "pix_payouts" ("id", "purpose", "owner_id", "merchant_id", "pix_key", "value_centavos", "created_at")
SELECT w."id", 'withdrawal', w."id", w."merchant_id", w."pix_key", w."value_centavos", w."created_at"
FROM "withdrawals" w WHERE w."kind" = 'pix_out' AND w."status" = 'PENDING';--> statement-breakpoint
INSERT INTO "pix_payouts" ("id", "purpose", "owner_id", "merchant_id", "brcode", "value_centavos", "created_at")
SELECT p."id", 'crypto_pix', p."id", p."merchant_id", p."qrcode", p."value_centavos", p."updated_at"
FROM "crypto_pix_payments" p WHERE p."closed_at" IS NULL AND p."pix_payout_id" = 'requested';--> statement-breakpoint
UPDATE "crypto_pix_payments" SET "refund_status" = 'COMPLETED' WHERE "status" = 'REFUNDED' AND "refund_tx_hash" IS NOT NULL;
--> statement-breakpoint
-- A database that already holds sandbox keys was written by sandbox mode: live mode must not start on it.
INSERT INTO "deployment_marks" ("name", "value")
SELECT 'sandbox_used', 'sandbox API keys found by migration 0004' WHERE EXISTS (SELECT 1 FROM "api_keys" WHERE "mode" = 'sandbox');
