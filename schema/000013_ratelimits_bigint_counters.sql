-- Rate-limit counters are bigint (issue 18, item 7).
--
-- `admitted`, `attempted` and `rejected` were integer: a key hammered for long enough within one
-- window (or a token bucket's statistics window) overflowed at 2^31 − 1, and the check failed with
-- SQLSTATE 22003 — answered as the caller's 422. `consumed` already was bigint. The rewrite takes the
-- table's lock for as long as it runs (the table holds live windows only, a sweep keeps it small).
ALTER TABLE ratelimit_counters
  ALTER COLUMN admitted TYPE bigint,
  ALTER COLUMN attempted TYPE bigint,
  ALTER COLUMN rejected TYPE bigint;
