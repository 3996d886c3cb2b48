-- Sweepers whose batch cannot go quadratic (found when CI's sweep test timed out).
--
-- A plpgsql function keeps the plan of each static statement for the life of the database session,
-- and a pooled session lives long. The sweepers wrote their batch by joining the chosen rows back to
-- the table (`DELETE … USING victims WHERE t.id = victims.id`). Planned while the table was empty
-- and analyzed as such (estimate: 1 row), that join is a nested loop over a sequential scan of the
-- table; the plan was kept, and the next run over a real backlog compared every victim with every
-- row: one batch of 10 000 out of 18 000 log rows took 53 s in a CI run (3 000 rows: ~1 s here).
--
-- Now each of those writes is planned when it runs (EXECUTE: no kept plan), for the table's current
-- size: a backlog is planned as one (a hash join, or the primary key per victim). The statements
-- are otherwise the ones they replace (same rows, order, limit, SKIP LOCKED).

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
    WITH victims AS (
      SELECT id FROM ratelimit_log WHERE expires_at <= now() ORDER BY expires_at LIMIT 10000
    )
    DELETE FROM ratelimit_log l USING victims v WHERE l.id = v.id
  $q$;
  GET DIAGNOSTICS n_log = ROW_COUNT;
  RETURN n_counters + n_log;
END
$$;

CREATE OR REPLACE FUNCTION admit_sweep_permits() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  k record;
  n integer := 0;
  d integer;
BEGIN
  FOR k IN
    SELECT DISTINCT kind, name FROM (
      SELECT kind, name FROM permits
       WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at <= clock_timestamp()
       ORDER BY expires_at LIMIT 500) due
  LOOP
    IF pg_try_advisory_xact_lock(admit_fnv64(k.kind || '/' || k.name)) THEN
      n := n + admit_permits_time_out(k.kind, k.name, clock_timestamp());
    END IF;
  END LOOP;

  EXECUTE $q$
    WITH old AS (
      SELECT id FROM permits
       WHERE (released_at IS NOT NULL OR timed_out_at IS NOT NULL)
         AND coalesce(released_at, timed_out_at) < now() - interval '30 days'
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM permits p USING old WHERE p.id = old.id
  $q$;
  GET DIAGNOSTICS d = ROW_COUNT;
  RETURN n + d;
END
$$;

CREATE OR REPLACE FUNCTION admit_sweep_inventory() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_released integer;
  v_marked integer;
BEGIN
  EXECUTE $q$
    WITH due AS (
      SELECT id FROM inventory_tokens
       WHERE held_until <= clock_timestamp()
       ORDER BY held_until
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL FROM due WHERE t.id = due.id
  $q$;
  GET DIAGNOSTICS v_released = ROW_COUNT;

  EXECUTE $q$
    WITH done AS (
      SELECT id FROM inventory_bookings
       WHERE status = 'held' AND expires_at <= clock_timestamp()
       ORDER BY expires_at
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_bookings b SET status = 'expired' FROM done WHERE b.id = done.id
  $q$;
  GET DIAGNOSTICS v_marked = ROW_COUNT;
  RETURN v_released + v_marked;
END
$$;

CREATE OR REPLACE FUNCTION admit_sweep_inventory_history() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_cutoff date := (now() AT TIME ZONE 'UTC')::date - 30;
  v_tokens integer;
  v_bookings integer;
  v_nights integer;
BEGIN
  EXECUTE $q$
    WITH old AS (
      SELECT t.id
        FROM (SELECT item, night FROM inventory_nights WHERE night < $1 ORDER BY night LIMIT 1000) n
        JOIN inventory_tokens t ON t.item = n.item AND t.night = n.night
       LIMIT 10000
         FOR UPDATE OF t SKIP LOCKED
    )
    DELETE FROM inventory_tokens t USING old WHERE t.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_tokens = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT b.id FROM inventory_bookings b
       WHERE b.check_out < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.booking_id = b.id)
       ORDER BY b.check_out
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_bookings b USING old WHERE b.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_bookings = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT n.item, n.night FROM inventory_nights n
       WHERE n.night < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night)
       ORDER BY n.night
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_nights n USING old WHERE n.item = old.item AND n.night = old.night
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_nights = ROW_COUNT;

  RETURN v_tokens + v_bookings + v_nights;
END
$$;
