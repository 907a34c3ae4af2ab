CREATE TABLE "order_receipts" (
	"provider" text NOT NULL,
	"payment_ref" text NOT NULL,
	"order_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"paid_at" timestamp (3) with time zone NOT NULL,
	"applied" boolean NOT NULL,
	"unapplied_reason" text,
	"source" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_receipts_provider_payment_ref_pk" PRIMARY KEY("provider","payment_ref"),
	CONSTRAINT "order_receipts_reason" CHECK (applied = (unapplied_reason is null))
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "pay_links" jsonb;--> statement-breakpoint
ALTER TABLE "provider_cursors" ADD COLUMN "sequence" bigint;--> statement-breakpoint
ALTER TABLE "order_receipts" ADD CONSTRAINT "order_receipts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_receipts" ADD CONSTRAINT "order_receipts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_receipts_order" ON "order_receipts" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "orders_provider_ref" ON "orders" USING btree ("provider","provider_ref") WHERE kind in ('lightning', 'exchange');--> statement-breakpoint
CREATE INDEX "orders_awaiting_provider" ON "orders" USING btree ("provider","expires_at") WHERE kind in ('lightning', 'exchange') and status in ('PENDING', 'CANCELLED');