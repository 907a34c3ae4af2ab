DROP INDEX "withdrawals_merchant_day";--> statement-breakpoint
CREATE INDEX "chain_transfers_refund_pending" ON "chain_transfers" USING btree ("owner_id") WHERE refund_status = 'PENDING';--> statement-breakpoint
CREATE INDEX "crypto_pix_invoices_action" ON "crypto_pix_invoices" USING btree ("updated_at") WHERE action in ('settle', 'cancel');--> statement-breakpoint
CREATE INDEX "crypto_pix_refund_pending" ON "crypto_pix_payments" USING btree ("id") WHERE refund_status = 'PENDING';--> statement-breakpoint
CREATE INDEX "idempotency_keys_expiry" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_merchant_kind" ON "ledger_entries" USING btree ("merchant_id","kind","id");--> statement-breakpoint
CREATE INDEX "withdrawals_merchant_day" ON "withdrawals" USING btree ("merchant_id","limit_day") WHERE status <> 'FAILED';