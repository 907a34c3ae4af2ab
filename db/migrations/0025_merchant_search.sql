-- btree_gin lets a GIN index lead with merchant_id, so a merchant's search reads only that merchant's
-- trigram entries; like pg_trgm it is a trusted extension since PostgreSQL 13.
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "crypto_pix_search";--> statement-breakpoint
DROP INDEX "onchain_orders_search";--> statement-breakpoint
DROP INDEX "orders_search";--> statement-breakpoint
CREATE INDEX "crypto_pix_search" ON "crypto_pix_payments" USING gin ("merchant_id",(lower(recipient_name || ' ' || pix_key || ' ' || coalesce(pix_txid, '') || ' ' || coalesce(tx_hash, '') || ' ' || address)) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "onchain_orders_search" ON "onchain_orders" USING gin ("merchant_id",(lower(address)) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "orders_search" ON "orders" USING gin ("merchant_id",(lower(coalesce(reference->>'orderId', '') || ' ' || coalesce(reference->>'orderRequest', '') || ' ' || coalesce(reference->>'merchant', '') || ' ' || coalesce(reference->>'name', '') || ' ' || coalesce(reference->>'email', '') || ' ' || coalesce(reference->>'payerId', '') || ' ' || coalesce(reference->>'subMerchantId', '') || ' ' || coalesce(reference->>'cpf', '') || ' ' || coalesce(reference->>'cnpj', ''))) gin_trgm_ops) WHERE reference <> '{}'::jsonb;