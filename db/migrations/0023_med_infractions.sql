CREATE TABLE "med_infractions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"infraction_id" text NOT NULL,
	"end_to_end_id" text NOT NULL,
	"order_id" uuid,
	"merchant_id" uuid,
	"value_centavos" bigint NOT NULL,
	"status" text NOT NULL,
	"open" boolean NOT NULL,
	"reason" text NOT NULL,
	"situation" text,
	"opened_at" timestamp (3) with time zone NOT NULL,
	"deadline" timestamp (3) with time zone NOT NULL,
	"defence" text,
	"defence_state" text DEFAULT 'none' NOT NULL,
	"defence_refusal" text,
	"defended_by" uuid,
	"defended_at" timestamp (3) with time zone,
	"synced_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "med_infractions_defence_state" CHECK (defence_state in ('none', 'sending', 'sent', 'refused')),
	CONSTRAINT "med_infractions_value_positive" CHECK (value_centavos > 0),
	CONSTRAINT "med_infractions_defence_length" CHECK (char_length(defence) <= 1000)
);
--> statement-breakpoint
ALTER TABLE "med_infractions" ADD CONSTRAINT "med_infractions_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "med_infractions" ADD CONSTRAINT "med_infractions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "med_infractions" ADD CONSTRAINT "med_infractions_defended_by_users_id_fk" FOREIGN KEY ("defended_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "med_infractions_once" ON "med_infractions" USING btree ("provider","infraction_id");--> statement-breakpoint
CREATE INDEX "med_infractions_merchant" ON "med_infractions" USING btree ("merchant_id","deadline");