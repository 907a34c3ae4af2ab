ALTER TABLE "recipient_payouts" ADD COLUMN "schedule_slot" date;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "payout_interval" text;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "payout_weekday" smallint;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "payout_month_day" smallint;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "payout_minimum_centavos" bigint;--> statement-breakpoint
ALTER TABLE "recipients" ADD COLUMN "payout_schedule_since" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "recipient_payouts_schedule_slot" ON "recipient_payouts" USING btree ("recipient_id","schedule_slot") WHERE schedule_slot is not null;--> statement-breakpoint
CREATE INDEX "recipients_payout_schedule" ON "recipients" USING btree ("id") WHERE payout_interval is not null;--> statement-breakpoint
ALTER TABLE "recipients" ADD CONSTRAINT "recipients_payout_schedule" CHECK ((payout_interval is null and payout_weekday is null and payout_month_day is null and payout_minimum_centavos is null and payout_schedule_since is null)
        or (payout_schedule_since is not null and (
          (payout_interval = 'daily' and payout_weekday is null and payout_month_day is null)
          or (payout_interval = 'weekly' and payout_weekday between 1 and 7 and payout_month_day is null)
          or (payout_interval = 'monthly' and payout_weekday is null and payout_month_day between 1 and 31))
          and (payout_minimum_centavos is null or payout_minimum_centavos > 0)));