CREATE TABLE "sandbox_recurrences" (
	"id_rec" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"journey" text NOT NULL,
	"tipo_jornada" text NOT NULL,
	"retry_policy" text NOT NULL,
	"immediate_txid" text,
	"immediate_centavos" bigint,
	"immediate_payment" jsonb,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"closure" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_recurring_charges" (
	"txid" text PRIMARY KEY NOT NULL,
	"id_rec" text NOT NULL,
	"status" text NOT NULL,
	"due_date" date NOT NULL,
	"value_centavos" bigint NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"closure" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_cycles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subscription_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"cycle" integer NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"due_date" date NOT NULL,
	"txid" text NOT NULL,
	"order_id" uuid NOT NULL,
	"value_centavos" bigint NOT NULL,
	"retries" integer DEFAULT 0 NOT NULL,
	"retry_date" date,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payment" jsonb,
	"failure" text,
	"sent_at" timestamp (3) with time zone,
	"checked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp (3) with time zone,
	CONSTRAINT "subscription_cycles_status" CHECK (status in ('CREATING', 'SCHEDULED', 'RETRYING', 'PAID', 'FAILED', 'CANCELLED')),
	CONSTRAINT "subscription_cycles_retries" CHECK (retries between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"status" text NOT NULL,
	"provider" text NOT NULL,
	"id_rec" text NOT NULL,
	"journey" text NOT NULL,
	"brcode" text NOT NULL,
	"payment_link_id" text NOT NULL,
	"immediate_txid" text,
	"payer_name" text NOT NULL,
	"payer_cpf" text,
	"payer_cnpj" text,
	"description" text NOT NULL,
	"reference" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"fixed_centavos" bigint,
	"minimum_centavos" bigint,
	"charge_centavos" bigint NOT NULL,
	"periodicity" text NOT NULL,
	"first_date" date NOT NULL,
	"last_date" date,
	"retry_policy" text NOT NULL,
	"next_cycle" integer DEFAULT 1 NOT NULL,
	"next_due_date" date,
	"cancelled_by" text,
	"closure" jsonb,
	"checked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp (3) with time zone,
	CONSTRAINT "subscriptions_status" CHECK (status in ('AWAITING_AUTHORISATION', 'ACTIVE', 'CANCELLED', 'REJECTED', 'EXPIRED', 'COMPLETED')),
	CONSTRAINT "subscriptions_one_document" CHECK ((payer_cpf is null) <> (payer_cnpj is null)),
	CONSTRAINT "subscriptions_amount" CHECK (fixed_centavos is null or (fixed_centavos > 0 and minimum_centavos is null)),
	CONSTRAINT "subscriptions_charge_positive" CHECK (charge_centavos > 0)
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_resource_type";--> statement-breakpoint
ALTER TABLE "subscription_cycles" ADD CONSTRAINT "subscription_cycles_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_cycles" ADD CONSTRAINT "subscription_cycles_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_cycles" ADD CONSTRAINT "subscription_cycles_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_cycles_number" ON "subscription_cycles" USING btree ("subscription_id","cycle");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_cycles_txid" ON "subscription_cycles" USING btree ("txid");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_cycles_order" ON "subscription_cycles" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "subscription_cycles_open" ON "subscription_cycles" USING btree ("due_date") WHERE status in ('CREATING', 'SCHEDULED', 'RETRYING');--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_id_rec" ON "subscriptions" USING btree ("id_rec");--> statement-breakpoint
CREATE INDEX "subscriptions_merchant_created" ON "subscriptions" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_awaiting" ON "subscriptions" USING btree ("created_at") WHERE status = 'AWAITING_AUTHORISATION';--> statement-breakpoint
CREATE INDEX "subscriptions_active_next" ON "subscriptions" USING btree ("next_due_date") WHERE status = 'ACTIVE';--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_resource_type" CHECK (resource_type in ('order', 'onchain_order', 'crypto_pix_payment', 'withdrawal', 'refund', 'webhook_endpoint', 'webhook_delivery', 'chain_transfer', 'invoice', 'invoice_batch', 'payment_link', 'subscription'));