CREATE TABLE "pix_returns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"end_to_end_id" text NOT NULL,
	"return_id" text NOT NULL,
	"rtr_id" text,
	"natureza" text NOT NULL,
	"value_centavos" bigint NOT NULL,
	"status" text NOT NULL,
	"order_id" uuid,
	"merchant_id" uuid,
	"description" text,
	"requested_at" timestamp (3) with time zone,
	"returned_at" timestamp (3) with time zone,
	"debited_at" timestamp (3) with time zone,
	"source" text NOT NULL,
	"attention" text,
	"attention_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pix_returns_natureza" CHECK (natureza in ('ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO')),
	CONSTRAINT "pix_returns_status" CHECK (status in ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
	CONSTRAINT "pix_returns_value_positive" CHECK (value_centavos > 0)
);
--> statement-breakpoint
CREATE TABLE "recon_mismatches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source" text NOT NULL,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"ref" text NOT NULL,
	"merchant_id" uuid,
	"ours" jsonb,
	"theirs" jsonb,
	"detail" text NOT NULL,
	"run_id" uuid,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp (3) with time zone,
	"resolved_at" timestamp (3) with time zone,
	"resolved_by" text,
	"resolution" text,
	"attention" text,
	"attention_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recon_mismatches_source" CHECK (source in ('pix_received', 'pix_sent', 'exchange', 'lightning', 'chain')),
	CONSTRAINT "recon_mismatches_kind" CHECK (kind in ('missing_here', 'missing_there', 'amount_differs', 'state_differs'))
);
--> statement-breakpoint
CREATE TABLE "recon_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source" text NOT NULL,
	"day" date NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"cursor" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"seen" integer DEFAULT 0 NOT NULL,
	"mismatches" integer DEFAULT 0 NOT NULL,
	"error" text,
	"lease_until" timestamp (3) with time zone,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recon_runs_source" CHECK (source in ('pix_received', 'pix_sent', 'exchange', 'lightning', 'chain')),
	CONSTRAINT "recon_runs_status" CHECK (status in ('running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "recon_seen" (
	"run_id" uuid NOT NULL,
	"ref" text NOT NULL,
	CONSTRAINT "recon_seen_run_id_ref_pk" PRIMARY KEY("run_id","ref")
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_kind";--> statement-breakpoint
ALTER TABLE "merchants" DROP CONSTRAINT "merchants_balance_non_negative";--> statement-breakpoint
ALTER TABLE "pix_returns" ADD CONSTRAINT "pix_returns_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pix_returns" ADD CONSTRAINT "pix_returns_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recon_mismatches" ADD CONSTRAINT "recon_mismatches_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recon_mismatches" ADD CONSTRAINT "recon_mismatches_run_id_recon_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."recon_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recon_seen" ADD CONSTRAINT "recon_seen_run_id_recon_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."recon_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pix_returns_once" ON "pix_returns" USING btree ("end_to_end_id","return_id");--> statement-breakpoint
CREATE INDEX "pix_returns_order" ON "pix_returns" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "pix_returns_merchant" ON "pix_returns" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "recon_mismatches_once" ON "recon_mismatches" USING btree ("source","ref","kind");--> statement-breakpoint
CREATE INDEX "recon_mismatches_open" ON "recon_mismatches" USING btree ("created_at") WHERE resolved_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "recon_runs_day" ON "recon_runs" USING btree ("source","day");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_kind" CHECK (kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit', 'refund_debit', 'withdrawal_debit', 'withdrawal_reversal', 'refund_reversal', 'adjustment', 'med_debit'));