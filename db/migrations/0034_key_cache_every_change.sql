-- The API key cache keeps entries until told (lib/identity/api-keys/key-cache.ts): every change to
-- what it holds must notify, not a list of columns that misses the next one (scopes and
-- api_destination_allowlist were missed). A merchant's balance and the keys' last use are not held.
DROP TRIGGER api_keys_auth_changed ON api_keys;
--> statement-breakpoint
DROP TRIGGER api_keys_scope_changed ON api_keys;
--> statement-breakpoint
DROP TRIGGER merchants_auth_changed ON merchants;
--> statement-breakpoint
DROP TRIGGER merchants_payout_hold_changed ON merchants;
--> statement-breakpoint
CREATE TRIGGER api_keys_auth_changed AFTER UPDATE ON api_keys
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION notify_api_auth_changed('merchant_id');
--> statement-breakpoint
CREATE TRIGGER api_keys_auth_deleted AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_auth_changed('merchant_id');
--> statement-breakpoint
CREATE TRIGGER merchants_auth_changed AFTER UPDATE ON merchants
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'balance_centavos' - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'balance_centavos' - 'updated_at'))
  EXECUTE FUNCTION notify_api_auth_changed('id');
--> statement-breakpoint
CREATE TRIGGER merchants_auth_deleted AFTER DELETE ON merchants
  FOR EACH ROW EXECUTE FUNCTION notify_api_auth_changed('id');
