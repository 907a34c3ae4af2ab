CREATE TABLE "order_splits" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"requested_centavos" bigint,
	"percentage_basis_points" integer,
	"value_centavos" bigint NOT NULL,
	"refunded_centavos" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"credited_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_splits_status" CHECK (status in ('PENDING', 'CREDITED', 'REFUNDED', 'CANCELLED')),
	CONSTRAINT "order_splits_one_form" CHECK ((requested_centavos is null) <> (percentage_basis_points is null)),
	CONSTRAINT "order_splits_percentage" CHECK (percentage_basis_points is null or percentage_basis_points between 1 and 10000)
);
--> statement-breakpoint
CREATE TABLE "recipient_ledger_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_centavos" bigint NOT NULL,
	"ref_type" text NOT NULL,
	"ref_id" text NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recipients" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"document" text NOT NULL,
	"pix_key" text NOT NULL,
	"pix_key_type" text NOT NULL,
	"pending_pix_key" text,
	"pending_pix_key_type" text,
	"pix_key_held_until" timestamp (3) with time zone,
	"balance_centavos" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_splits" ADD CONSTRAINT "order_splits_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_splits" ADD CONSTRAINT "order_splits_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_splits" ADD CONSTRAINT "order_splits_recipient_id_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."recipients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_ledger_entries" ADD CONSTRAINT "recipient_ledger_entries_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipient_ledger_entries" ADD CONSTRAINT "recipient_ledger_entries_recipient_id_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."recipients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recipients" ADD CONSTRAINT "recipients_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "order_splits_order_recipient" ON "order_splits" USING btree ("order_id","recipient_id");--> statement-breakpoint
CREATE INDEX "order_splits_recipient" ON "order_splits" USING btree ("recipient_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_ledger_entries_ref" ON "recipient_ledger_entries" USING btree ("kind","ref_type","ref_id");--> statement-breakpoint
CREATE INDEX "recipient_ledger_entries_recipient" ON "recipient_ledger_entries" USING btree ("recipient_id","created_at","id");--> statement-breakpoint
CREATE INDEX "recipients_merchant" ON "recipients" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "recipients_merchant_document" ON "recipients" USING btree ("merchant_id","document");