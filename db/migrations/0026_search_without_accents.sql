-- Order search ignores accents: "Joao" finds "João" (lib/orders/search.ts). unaccent is a trusted
-- extension like pg_trgm, but its function is only STABLE (its dictionary could be changed), so it
-- cannot be an index expression; search_fold fixes the dictionary, which is never changed here, and is
-- declared IMMUTABLE. Schema-qualified, so neither a caller's search_path nor a restore changes what it
-- calls. The search text is folded the same way on both sides: in the index and in every query.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;--> statement-breakpoint
DROP INDEX "crypto_pix_search";--> statement-breakpoint
DROP INDEX "orders_search";--> statement-breakpoint
CREATE INDEX "crypto_pix_search" ON "crypto_pix_payments" USING gin ("merchant_id",(search_fold(recipient_name || ' ' || pix_key || ' ' || coalesce(pix_txid, '') || ' ' || coalesce(tx_hash, '') || ' ' || address)) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "orders_search" ON "orders" USING gin ("merchant_id",(search_fold(coalesce(reference->>'orderId', '') || ' ' || coalesce(reference->>'orderRequest', '') || ' ' || coalesce(reference->>'merchant', '') || ' ' || coalesce(reference->>'name', '') || ' ' || coalesce(reference->>'email', '') || ' ' || coalesce(reference->>'payerId', '') || ' ' || coalesce(reference->>'subMerchantId', '') || ' ' || coalesce(reference->>'cpf', '') || ' ' || coalesce(reference->>'cnpj', ''))) gin_trgm_ops) WHERE reference <> '{}'::jsonb;