CREATE SEQUENCE "public"."wallet_index_seq" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"mode" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "chain_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"from_address" text,
	"to_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"applied_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"unapplied_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"owner_kind" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"note" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crypto_pix_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"token_address" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"address" text NOT NULL,
	"wallet_index" integer NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"qrcode" text NOT NULL,
	"pix_key" text NOT NULL,
	"recipient_name" text NOT NULL,
	"recipient_city" text NOT NULL,
	"pix_txid" text,
	"value_centavos" bigint NOT NULL,
	"crypto_amount" numeric(38, 18) NOT NULL,
	"rate" numeric(38, 18) NOT NULL,
	"rate_source" text NOT NULL,
	"rate_at" timestamp (3) with time zone NOT NULL,
	"received_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"unapplied_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"partial_brl_centavos" bigint,
	"partial_updated_at" timestamp (3) with time zone,
	"tx_hash" text,
	"refund_address" text,
	"refund_tx_hash" text,
	"pix_payout_id" text,
	"failure_reason" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crypto_pix_status" CHECK (status in ('PENDING', 'COMPLETED', 'REFUNDED', 'PARTIAL_ORDER', 'FAILED')),
	CONSTRAINT "crypto_pix_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "deposit_addresses" (
	"wallet_index" integer PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"owner_kind" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"merchant_id" uuid NOT NULL,
	"type" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hot_wallet_nonces" (
	"network" text PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"next_nonce" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"merchant_id" uuid NOT NULL,
	"key" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body_hash" text NOT NULL,
	"state" text DEFAULT 'in_flight' NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_merchant_id_key_method_path_pk" PRIMARY KEY("merchant_id","key","method","path")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_centavos" bigint NOT NULL,
	"ref_type" text NOT NULL,
	"ref_id" text NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_entries_kind" CHECK (kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit', 'refund_debit', 'withdrawal_debit', 'withdrawal_reversal', 'adjustment')),
	CONSTRAINT "ledger_entries_non_zero" CHECK (amount_centavos <> 0)
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_name" text NOT NULL,
	"pix_key" text,
	"pix_key_type" text,
	"account_type" text DEFAULT 'standard' NOT NULL,
	"balance_centavos" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "merchants_account_type" CHECK (account_type in ('standard', 'verified', 'business')),
	CONSTRAINT "merchants_balance_non_negative" CHECK (balance_centavos >= 0)
);
--> statement-breakpoint
CREATE TABLE "onchain_orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"payment_link_id" text NOT NULL,
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"token_address" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"address" text NOT NULL,
	"wallet_index" integer NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"value_centavos" bigint NOT NULL,
	"crypto_amount" numeric(38, 18) NOT NULL,
	"rate" numeric(38, 18) NOT NULL,
	"rate_source" text NOT NULL,
	"rate_at" timestamp (3) with time zone NOT NULL,
	"received_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"unapplied_amount" numeric(38, 18) DEFAULT '0' NOT NULL,
	"credited_centavos" bigint DEFAULT 0 NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "onchain_orders_status" CHECK (status in ('PENDING', 'COMPLETED', 'REFUNDED', 'PARTIAL_ORDER', 'FAILED')),
	CONSTRAINT "onchain_orders_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"payment_link_id" text NOT NULL,
	"hash" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"value_centavos" bigint NOT NULL,
	"reference" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"provider" text NOT NULL,
	"provider_ref" text,
	"brcode" text,
	"txid" text,
	"invoice" text,
	"payment_hash" text,
	"satoshis" bigint,
	"rate" numeric(38, 18),
	"rate_source" text,
	"rate_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	"paid_at" timestamp (3) with time zone,
	"version" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_kind" CHECK (kind in ('pix', 'exchange', 'lightning')),
	CONSTRAINT "orders_status" CHECK (status in ('PENDING', 'COMPLETED', 'CANCELLED', 'FAILED', 'REFUND')),
	CONSTRAINT "orders_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"secret" text NOT NULL,
	"disabled_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "withdrawals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"value_centavos" bigint NOT NULL,
	"service_fee_centavos" bigint DEFAULT 0 NOT NULL,
	"network_fee_centavos" bigint DEFAULT 0 NOT NULL,
	"debit_centavos" bigint NOT NULL,
	"limit_day" date NOT NULL,
	"network" text,
	"token" text,
	"token_address" text,
	"to_address" text,
	"token_amount" numeric(38, 18),
	"rate" numeric(38, 18),
	"pix_key" text,
	"pix_key_type" text,
	"tx_hash" text,
	"provider_ref" text,
	"failure_reason" text,
	"completed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "withdrawals_kind" CHECK (kind in ('onchain', 'pix_out')),
	CONSTRAINT "withdrawals_status" CHECK (status in ('PENDING', 'COMPLETED', 'FAILED')),
	CONSTRAINT "withdrawals_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ADD CONSTRAINT "crypto_pix_payments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crypto_pix_payments" ADD CONSTRAINT "crypto_pix_payments_wallet_index_deposit_addresses_wallet_index_fk" FOREIGN KEY ("wallet_index") REFERENCES "public"."deposit_addresses"("wallet_index") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onchain_orders" ADD CONSTRAINT "onchain_orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onchain_orders" ADD CONSTRAINT "onchain_orders_wallet_index_deposit_addresses_wallet_index_fk" FOREIGN KEY ("wallet_index") REFERENCES "public"."deposit_addresses"("wallet_index") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD CONSTRAINT "withdrawals_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_merchant" ON "api_keys" USING btree ("merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chain_transfers_unique" ON "chain_transfers" USING btree ("network","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "chain_transfers_owner" ON "chain_transfers" USING btree ("owner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_pix_wallet_index" ON "crypto_pix_payments" USING btree ("wallet_index");--> statement-breakpoint
CREATE INDEX "crypto_pix_merchant_created" ON "crypto_pix_payments" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "crypto_pix_open_expiry" ON "crypto_pix_payments" USING btree ("expires_at") WHERE closed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_address" ON "deposit_addresses" USING btree (lower("address"));--> statement-breakpoint
CREATE UNIQUE INDEX "events_seq" ON "events" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "events_merchant_seq" ON "events" USING btree ("merchant_id","seq");--> statement-breakpoint
CREATE INDEX "events_subject" ON "events" USING btree ("subject_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_once" ON "ledger_entries" USING btree ("kind","ref_type","ref_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_merchant" ON "ledger_entries" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "onchain_orders_payment_link_id" ON "onchain_orders" USING btree ("payment_link_id");--> statement-breakpoint
CREATE UNIQUE INDEX "onchain_orders_wallet_index" ON "onchain_orders" USING btree ("wallet_index");--> statement-breakpoint
CREATE INDEX "onchain_orders_merchant_created" ON "onchain_orders" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "onchain_orders_open_expiry" ON "onchain_orders" USING btree ("expires_at") WHERE closed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_payment_link_id" ON "orders" USING btree ("payment_link_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_hash" ON "orders" USING btree ("hash");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_txid" ON "orders" USING btree ("txid");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_payment_hash" ON "orders" USING btree ("payment_hash");--> statement-breakpoint
CREATE INDEX "orders_merchant_created" ON "orders" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_pending_expiry" ON "orders" USING btree ("expires_at") WHERE status = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_lower" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "webhook_endpoints_merchant" ON "webhook_endpoints" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "withdrawals_merchant_day" ON "withdrawals" USING btree ("merchant_id","limit_day");--> statement-breakpoint
CREATE INDEX "withdrawals_merchant_created" ON "withdrawals" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawals_tx_hash" ON "withdrawals" USING btree ("tx_hash");