CREATE TABLE "solvency_reports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"liabilities_centavos" bigint NOT NULL,
	"assets_centavos" bigint NOT NULL,
	"receivables_centavos" bigint NOT NULL,
	"shortfall_centavos" bigint NOT NULL,
	"tolerance_centavos" bigint NOT NULL,
	"short" boolean NOT NULL,
	"alerted" boolean DEFAULT false NOT NULL,
	"lines" jsonb NOT NULL,
	"not_read" jsonb NOT NULL,
	"taken_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solvency_reports_shortfall" CHECK (shortfall_centavos >= 0)
);
--> statement-breakpoint
CREATE INDEX "solvency_reports_taken" ON "solvency_reports" USING btree ("taken_at");