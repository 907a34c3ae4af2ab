DROP INDEX "recipients_payout_schedule";--> statement-breakpoint
CREATE INDEX "recipients_payout_schedule" ON "recipients" USING btree ("id") WHERE payout_interval is not null and status = 'ACTIVE';