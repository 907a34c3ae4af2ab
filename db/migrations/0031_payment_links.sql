CREATE TABLE "payment_link_sales" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"link_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"order_type" text NOT NULL,
	"order_id" uuid NOT NULL,
	"value_centavos" bigint NOT NULL,
	"quantity" integer DEFAULT 1 NOT NULL,
	"payer" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"link_version" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_link_sales_order_type" CHECK (order_type in ('pix', 'lightning', 'exchange', 'onchain')),
	CONSTRAINT "payment_link_sales_quantity" CHECK (quantity > 0)
);
--> statement-breakpoint
CREATE TABLE "payment_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"image_url" text,
	"price_centavos" bigint,
	"min_centavos" bigint,
	"max_centavos" bigint,
	"max_quantity" integer,
	"rails" jsonb NOT NULL,
	"onchain_options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payer_fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"available_until" timestamp (3) with time zone,
	"max_payments" integer,
	"reference" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_links_status" CHECK (status in ('ACTIVE', 'PAUSED')),
	CONSTRAINT "payment_links_amount" CHECK ((price_centavos is not null and price_centavos > 0 and min_centavos is null and max_centavos is null) or (price_centavos is null and max_quantity is null)),
	CONSTRAINT "payment_links_bounds" CHECK (min_centavos is null or max_centavos is null or min_centavos <= max_centavos),
	CONSTRAINT "payment_links_max_payments" CHECK (max_payments is null or max_payments > 0),
	CONSTRAINT "payment_links_max_quantity" CHECK (max_quantity is null or max_quantity > 1)
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_resource_type";--> statement-breakpoint
ALTER TABLE "payment_link_sales" ADD CONSTRAINT "payment_link_sales_link_id_payment_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."payment_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_link_sales" ADD CONSTRAINT "payment_link_sales_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_links" ADD CONSTRAINT "payment_links_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_link_sales_order" ON "payment_link_sales" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "payment_link_sales_link_created" ON "payment_link_sales" USING btree ("link_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_links_slug" ON "payment_links" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "payment_links_merchant_created" ON "payment_links" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_resource_type" CHECK (resource_type in ('order', 'onchain_order', 'crypto_pix_payment', 'withdrawal', 'refund', 'webhook_endpoint', 'webhook_delivery', 'chain_transfer', 'invoice', 'invoice_batch', 'payment_link'));