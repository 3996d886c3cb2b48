-- Housekeeping entry point for the Worker's cron (functions/core/sweep.ts).
--
-- Each capability defines `admit_sweep_<name>() RETURNS integer` in its own migration: delete (or
-- mark) a bounded batch of expired rows and return how many. admit_sweep() finds them all by name,
-- so adding a capability never edits this file. Sweepers run in name order inside one transaction.
CREATE FUNCTION admit_sweep() RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  fn record;
  n integer;
  report jsonb := '{}'::jsonb;
BEGIN
  FOR fn IN
    SELECT p.proname
    FROM pg_proc p
    JOIN pg_namespace ns ON ns.oid = p.pronamespace
    WHERE p.proname LIKE 'admit\_sweep\_%' AND p.pronargs = 0 AND ns.nspname = current_schema()
    ORDER BY p.proname
  LOOP
    EXECUTE format('SELECT %I()', fn.proname) INTO n;
    report := report || jsonb_build_object(substr(fn.proname, length('admit_sweep_') + 1), coalesce(n, 0));
  END LOOP;
  RETURN report::json;
END
$$;
