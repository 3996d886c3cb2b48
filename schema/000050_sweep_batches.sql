-- The cron sweep in batches, each its own transaction (issue 18, item 9).
--
-- admit_sweep() (000003) runs every sweeper once, all in one transaction: each deletes at most one
-- batch (10000 rows) a minute per table, fewer than a table written at a few hundred rows a second
-- gains, and the rows it has locked stay locked until the last sweeper finishes. The Worker's cron
-- (functions/core/sweep.ts) now asks for the sweepers' names and calls them one batch at a time —
-- each call one statement, so one short transaction — round after round until each reports nothing
-- left or the cron's time budget is spent. admit_sweep() stays for running everything by hand.

-- The sweepers a migration defined (admit_sweep_<name>() RETURNS integer), by name.
CREATE FUNCTION admit_sweepers() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT substr(p.proname, length('admit_sweep_') + 1)
    FROM pg_proc p
    JOIN pg_namespace ns ON ns.oid = p.pronamespace
   WHERE p.proname LIKE 'admit\_sweep\_%' AND p.pronargs = 0 AND ns.nspname = current_schema()
   ORDER BY p.proname
$$;

-- One batch of one sweeper: the rows it changed (0 = nothing left for it now). NULL for a name
-- that is not a sweeper.
CREATE FUNCTION admit_sweep_batch(p_name text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM admit_sweepers() s WHERE s = p_name) THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT %I()', 'admit_sweep_' || p_name) INTO n;
  RETURN coalesce(n, 0);
END
$$;

-- Retention of past inventory: the tokens, nights and bookings of nights that ended more than 30
-- days ago (UTC dates) are deleted, in batches. Tokens go first (they reference both), then the
-- bookings none of whose tokens remain, then the nights without tokens. Rows a request holds are
-- skipped, never waited for.
CREATE INDEX inventory_nights_by_night ON inventory_nights (night);
CREATE INDEX inventory_bookings_by_check_out ON inventory_bookings (check_out);

CREATE FUNCTION admit_sweep_inventory_history() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_cutoff date := (now() AT TIME ZONE 'UTC')::date - 30;
  v_tokens integer;
  v_bookings integer;
  v_nights integer;
BEGIN
  WITH old AS (
    SELECT t.id
      FROM (SELECT item, night FROM inventory_nights WHERE night < v_cutoff ORDER BY night LIMIT 1000) n
      JOIN inventory_tokens t ON t.item = n.item AND t.night = n.night
     LIMIT 10000
       FOR UPDATE OF t SKIP LOCKED
  )
  DELETE FROM inventory_tokens t USING old WHERE t.id = old.id;
  GET DIAGNOSTICS v_tokens = ROW_COUNT;

  WITH old AS (
    SELECT b.id FROM inventory_bookings b
     WHERE b.check_out < v_cutoff
       AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.booking_id = b.id)
     ORDER BY b.check_out
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM inventory_bookings b USING old WHERE b.id = old.id;
  GET DIAGNOSTICS v_bookings = ROW_COUNT;

  WITH old AS (
    SELECT n.item, n.night FROM inventory_nights n
     WHERE n.night < v_cutoff
       AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night)
     ORDER BY n.night
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM inventory_nights n USING old WHERE n.item = old.item AND n.night = old.night;
  GET DIAGNOSTICS v_nights = ROW_COUNT;

  RETURN v_tokens + v_bookings + v_nights;
END
$$;
