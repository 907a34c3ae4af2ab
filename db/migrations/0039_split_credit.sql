ALTER TABLE "order_splits" ALTER COLUMN "order_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "split_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "onchain_orders" ADD COLUMN "split_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_splits" ADD COLUMN "onchain_order_id" uuid;--> statement-breakpoint
ALTER TABLE "order_splits" ADD CONSTRAINT "order_splits_onchain_order_id_onchain_orders_id_fk" FOREIGN KEY ("onchain_order_id") REFERENCES "public"."onchain_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_splits_onchain_recipient" ON "order_splits" USING btree ("onchain_order_id","recipient_id") WHERE onchain_order_id is not null;--> statement-breakpoint
ALTER TABLE "order_splits" ADD CONSTRAINT "order_splits_one_order" CHECK ((order_id is null) <> (onchain_order_id is null));