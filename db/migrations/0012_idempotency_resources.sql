ALTER TABLE "idempotency_keys" ADD COLUMN "resource_type" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "resource_id" uuid;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_state" CHECK (state in ('in_flight', 'committed', 'done'));--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_resource_type" CHECK (resource_type in ('order', 'onchain_order', 'crypto_pix_payment', 'withdrawal', 'refund', 'webhook_endpoint', 'webhook_delivery', 'chain_transfer'));--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_committed_resource" CHECK (state <> 'committed' or (resource_type is not null and resource_id is not null));