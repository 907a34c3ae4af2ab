ALTER TABLE "idempotency_keys" ADD COLUMN "claim_id" uuid;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "lease_until" timestamp (3) with time zone;