DROP INDEX "crypto_pix_merchant_created";--> statement-breakpoint
DROP INDEX "onchain_orders_merchant_created";--> statement-breakpoint
DROP INDEX "orders_merchant_created";--> statement-breakpoint
-- Order search's trigram indexes (lib/orders/search.ts); pg_trgm is a trusted extension since PostgreSQL 13.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "crypto_pix_search" ON "crypto_pix_payments" USING gin ((lower(recipient_name || ' ' || pix_key || ' ' || coalesce(pix_txid, '') || ' ' || coalesce(tx_hash, '') || ' ' || address)) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "crypto_pix_merchant_value" ON "crypto_pix_payments" USING btree ("merchant_id","value_centavos","created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_merchant_created" ON "ledger_entries" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "onchain_orders_search" ON "onchain_orders" USING gin ((lower(address)) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "onchain_orders_merchant_value" ON "onchain_orders" USING btree ("merchant_id","value_centavos","created_at");--> statement-breakpoint
CREATE INDEX "orders_search" ON "orders" USING gin ((lower(coalesce(reference->>'orderId', '') || ' ' || coalesce(reference->>'orderRequest', '') || ' ' || coalesce(reference->>'merchant', '') || ' ' || coalesce(reference->>'name', '') || ' ' || coalesce(reference->>'email', '') || ' ' || coalesce(reference->>'payerId', '') || ' ' || coalesce(reference->>'subMerchantId', '') || ' ' || coalesce(reference->>'cpf', '') || ' ' || coalesce(reference->>'cnpj', ''))) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "orders_merchant_value" ON "orders" USING btree ("merchant_id","value_centavos","created_at");--> statement-breakpoint
CREATE INDEX "crypto_pix_merchant_created" ON "crypto_pix_payments" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "onchain_orders_merchant_created" ON "onchain_orders" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_merchant_created" ON "orders" USING btree ("merchant_id","created_at","id");