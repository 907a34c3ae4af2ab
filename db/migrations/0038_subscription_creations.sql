CREATE TABLE "subscription_creations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"idempotency_key" text,
	"provider" text NOT NULL,
	"state" text NOT NULL,
	"location_id" text,
	"immediate_txid" text,
	"id_rec" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_creations_state" CHECK (state in ('CREATING', 'DONE', 'ABANDONED'))
);
--> statement-breakpoint
ALTER TABLE "subscription_creations" ADD CONSTRAINT "subscription_creations_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_creations_key" ON "subscription_creations" USING btree ("merchant_id","idempotency_key") WHERE idempotency_key is not null;--> statement-breakpoint
CREATE INDEX "subscription_creations_creating" ON "subscription_creations" USING btree ("updated_at") WHERE state = 'CREATING';