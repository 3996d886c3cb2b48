-- The rate-limit sweeper deletes its log rows by id = ANY(the batch's ids), as it already deletes its
-- counters by ctid: a plan that cannot go quadratic. The join form (DELETE … USING victims) was
-- planned on whatever the statistics said at that moment; under a loaded test run one batch of
-- 10 000 rows took 56.8 s (test/sweep.test.ts, "a table written at a few hundred rows a second stays
-- bounded", which then cleared 10 000 of 18 000 rows in its 55 s budget), where the same batch takes
-- well under a second with an index scan or a hashed array match. An array of ids is matched either
-- through the primary key or, on a sequential scan, by a hashed lookup: linear in both cases.
CREATE OR REPLACE FUNCTION admit_sweep_ratelimits() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n_counters integer;
  n_log integer;
BEGIN
  -- SKIP LOCKED: a row a check holds right now is left for the next sweep, never waited for.
  EXECUTE $q$
    DELETE FROM ratelimit_counters
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM ratelimit_counters WHERE expires_at <= now()
                              LIMIT 10000 FOR UPDATE SKIP LOCKED))
       AND expires_at <= now()
  $q$;
  GET DIAGNOSTICS n_counters = ROW_COUNT;
  EXECUTE $q$
    DELETE FROM ratelimit_log
     WHERE id = ANY (ARRAY(SELECT id FROM ratelimit_log WHERE expires_at <= now() ORDER BY expires_at LIMIT 10000))
  $q$;
  GET DIAGNOSTICS n_log = ROW_COUNT;
  RETURN n_counters + n_log;
END
$$;
