DROP INDEX "orders_txid";--> statement-breakpoint
DROP INDEX "orders_payment_hash";--> statement-breakpoint
DROP INDEX "orders_pending_expiry";--> statement-breakpoint
CREATE UNIQUE INDEX "orders_txid" ON "orders" USING btree ("txid") WHERE txid is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_payment_hash" ON "orders" USING btree ("payment_hash") WHERE payment_hash is not null;--> statement-breakpoint
CREATE INDEX "orders_pending_expiry" ON "orders" USING btree ("expires_at") WHERE status = 'PENDING' and expires_at is not null;