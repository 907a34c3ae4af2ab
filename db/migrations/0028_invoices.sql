CREATE TABLE "invoice_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"psp_batch_id" bigserial NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'PROCESSING' NOT NULL,
	"size" integer NOT NULL,
	"refusals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoice_batches_status" CHECK (status in ('PROCESSING', 'DONE'))
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"order_id" uuid,
	"batch_id" uuid,
	"batch_index" integer,
	"status" text NOT NULL,
	"txid" text NOT NULL,
	"provider" text NOT NULL,
	"payer_name" text NOT NULL,
	"payer_cpf" text,
	"payer_cnpj" text,
	"payer_email" text,
	"reference" text,
	"description" text,
	"original_centavos" bigint NOT NULL,
	"due_date" date NOT NULL,
	"days_after_due" integer NOT NULL,
	"fine" jsonb,
	"interest" jsonb,
	"abatement" jsonb,
	"discount" jsonb,
	"last_payable_day" date NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"notify_payer" boolean DEFAULT false NOT NULL,
	"mailed_at" timestamp (3) with time zone,
	"payment" jsonb,
	"problem" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp (3) with time zone,
	CONSTRAINT "invoices_status" CHECK (status in ('PROCESSING', 'OPEN', 'PAID', 'EXPIRED', 'CANCELLED', 'REFUSED')),
	CONSTRAINT "invoices_original_positive" CHECK (original_centavos > 0),
	CONSTRAINT "invoices_days_after_due" CHECK (days_after_due >= 0),
	CONSTRAINT "invoices_one_document" CHECK ((payer_cpf is null) <> (payer_cnpj is null)),
	CONSTRAINT "invoices_order_when_made" CHECK ((order_id is null) = (status in ('PROCESSING', 'REFUSED')))
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_resource_type";--> statement-breakpoint
ALTER TABLE "invoice_batches" ADD CONSTRAINT "invoice_batches_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_batch_id_invoice_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."invoice_batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoice_batches_psp_id" ON "invoice_batches" USING btree ("psp_batch_id");--> statement-breakpoint
CREATE INDEX "invoice_batches_merchant_created" ON "invoice_batches" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "invoice_batches_processing" ON "invoice_batches" USING btree ("created_at") WHERE status = 'PROCESSING';--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_order" ON "invoices" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_txid" ON "invoices" USING btree ("txid");--> statement-breakpoint
CREATE INDEX "invoices_merchant_created" ON "invoices" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "invoices_merchant_reference" ON "invoices" USING btree ("merchant_id","reference") WHERE reference is not null;--> statement-breakpoint
CREATE INDEX "invoices_batch" ON "invoices" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "invoices_open_expiry" ON "invoices" USING btree ("expires_at") WHERE status = 'OPEN';--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_resource_type" CHECK (resource_type in ('order', 'onchain_order', 'crypto_pix_payment', 'withdrawal', 'refund', 'webhook_endpoint', 'webhook_delivery', 'chain_transfer', 'invoice', 'invoice_batch'));