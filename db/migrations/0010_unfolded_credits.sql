CREATE TABLE "unfolded_credits" (
	"entry_id" bigint PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"amount_centavos" bigint NOT NULL,
	CONSTRAINT "unfolded_credits_positive" CHECK (amount_centavos > 0)
);
--> statement-breakpoint
ALTER TABLE "unfolded_credits" ADD CONSTRAINT "unfolded_credits_entry_id_ledger_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "unfolded_credits_merchant" ON "unfolded_credits" USING btree ("merchant_id");