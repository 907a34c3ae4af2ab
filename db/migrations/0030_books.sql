ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_kind";--> statement-breakpoint
ALTER TABLE "med_infractions" ADD COLUMN "hold_state" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "med_infractions" ADD COLUMN "held_centavos" bigint;--> statement-breakpoint
ALTER TABLE "recon_runs" ADD COLUMN "attention" text;--> statement-breakpoint
ALTER TABLE "recon_runs" ADD COLUMN "attention_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_kind" CHECK (kind in ('order_credit', 'deposit_credit', 'partial_deposit_credit', 'refund_debit', 'withdrawal_debit', 'withdrawal_reversal', 'refund_reversal', 'adjustment', 'med_debit', 'med_hold', 'med_hold_release', 'unapplied_credit'));--> statement-breakpoint
ALTER TABLE "med_infractions" ADD CONSTRAINT "med_infractions_hold_state" CHECK (hold_state in ('none', 'held', 'released', 'returned'));