-- The rate limiter's shared counts (lib/http/rate-limit.ts) are rewritten every second, one row per
-- active key: with 2,000 keys that was 34 ms of statement and ~590 kB of WAL a second, most of it
-- new index entries because the updates found no room on their page (measured on PostgreSQL 15).
-- Unlogged: the counts live for a minute, so a crash or a failover that empties the table costs at
-- most one extra minute's allowance per key, and writing them to WAL (and to replicas) bought nothing.
-- Half-empty pages: an update finds room beside its row and stays HOT (no index write, no dead index
-- entry for the vacuum to find).
ALTER TABLE "rate_limits" SET UNLOGGED;--> statement-breakpoint
ALTER TABLE "rate_limits" SET (fillfactor = 50);
