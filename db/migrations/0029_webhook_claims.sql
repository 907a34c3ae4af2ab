CREATE INDEX "webhook_deliveries_endpoint_due" ON "webhook_deliveries" USING btree ("endpoint_id","next_attempt_at","event_seq") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_first_attempt" ON "webhook_deliveries" USING btree ("endpoint_id","subject_id","event_seq") WHERE status = 'pending' and attempts = 0 and redelivery_of is null;--> statement-breakpoint
-- Rows written before the constraint: a pending one without a schedule is due now, a decided one keeps none.
UPDATE "webhook_deliveries" SET "next_attempt_at" = now() WHERE status = 'pending' AND next_attempt_at IS NULL;--> statement-breakpoint
UPDATE "webhook_deliveries" SET "next_attempt_at" = NULL WHERE status <> 'pending' AND next_attempt_at IS NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_schedule" CHECK ((status = 'pending') = (next_attempt_at is not null));