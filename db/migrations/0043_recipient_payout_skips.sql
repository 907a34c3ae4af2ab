CREATE TABLE "recipient_payout_skips" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"schedule_slot" date NOT NULL,
	"reason" text NOT NULL,
	"balance_centavos" bigint NOT NULL,
	"minimum_centavos" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recipient_payout_skips_reason" CHECK (reason in ('no_balance', 'below_minimum', 'key_held'))
);
--> statement-breakpoint
ALTER TABLE "recipient_payout_skips" ADD CONSTRAINT "recipient_payout_skips_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_payout_skips" ADD CONSTRAINT "recipient_payout_skips_recipient_id_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."recipients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_payout_skips_slot" ON "recipient_payout_skips" USING btree ("recipient_id","schedule_slot","reason");