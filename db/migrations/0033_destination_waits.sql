DROP INDEX "unapplied_resolutions_transfer";--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "claimed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD COLUMN "waiting_destination_id" uuid;--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD COLUMN "waiting_reason" text;--> statement-breakpoint
ALTER TABLE "unapplied_resolutions" ADD COLUMN "cancelled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "waiting_destination_id" uuid;--> statement-breakpoint
CREATE INDEX "mail_outbox_queued" ON "mail_outbox" USING btree ("created_at") WHERE status in ('queued', 'sending');--> statement-breakpoint
CREATE INDEX "unapplied_resolutions_waiting" ON "unapplied_resolutions" USING btree ("created_at") WHERE status = 'PENDING' and waiting_destination_id is not null;--> statement-breakpoint
CREATE INDEX "withdrawals_waiting" ON "withdrawals" USING btree ("created_at") WHERE status = 'PENDING' and waiting_destination_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "unapplied_resolutions_transfer" ON "unapplied_resolutions" USING btree ("transfer_id") WHERE cancelled_at is null;