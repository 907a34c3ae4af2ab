-- Each app instance keeps the API keys it has seen, with their merchant's profile, in memory
-- (lib/api/key-cache.ts). Whatever changes a key or a merchant's profile, from any instance or a
-- psql session, tells every instance to forget that merchant's entries.
CREATE FUNCTION notify_api_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The trigger's argument names the column holding the merchant's id.
  PERFORM pg_notify('api_auth_changed', to_jsonb(OLD) ->> TG_ARGV[0]);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OF revoked_at, key_hash, merchant_id OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_auth_changed('merchant_id');
--> statement-breakpoint
-- Balance updates are not profile changes: the balance is never served from the cache.
CREATE TRIGGER merchants_auth_changed AFTER UPDATE OF company_name, pix_key, pix_key_type, account_type OR DELETE ON merchants
  FOR EACH ROW EXECUTE FUNCTION notify_api_auth_changed('id');
--> statement-breakpoint
-- Rate-limit windows are counters that live a minute: losing them in a crash only resets the
-- window, so they skip the WAL and their per-request upsert does not wait for a disk flush.
ALTER TABLE rate_limits SET UNLOGGED;
