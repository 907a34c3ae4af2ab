ALTER TABLE "recon_runs" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "recon_runs" ADD COLUMN "attention_at" timestamp (3) with time zone;