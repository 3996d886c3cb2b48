-- GENERATED FILE: DO NOT EDIT.
--
-- The core part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Extensions

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

-- Functions

CREATE OR REPLACE FUNCTION public.admit_advisory_xact_lock_within(p_key bigint, p_wait_ms integer)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_previous text := current_setting('lock_timeout');
BEGIN
  -- The exception block is a subtransaction: a timed-out wait rolls back only itself (and this
  -- set_config), so the caller's transaction stays usable and gets a plain false.
  PERFORM set_config('lock_timeout', greatest(p_wait_ms, 1)::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_key);
  PERFORM set_config('lock_timeout', v_previous, true);
  RETURN true;
EXCEPTION WHEN lock_not_available THEN
  RETURN false;
END
$function$;
COMMENT ON FUNCTION admit_advisory_xact_lock_within(p_key bigint, p_wait_ms integer) IS 'Takes the transaction-scoped advisory lock p_key, waiting at most p_wait_ms; false when it could not be had in time (nothing is held then).';

CREATE OR REPLACE FUNCTION public.admit_fnv64(p_text text)
 RETURNS bigint
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
DECLARE
  b bytea := convert_to(p_text, 'UTF8');
  h numeric := 14695981039346656037;
  lo integer;
BEGIN
  FOR i IN 0 .. length(b) - 1 LOOP
    lo := (h % 256)::integer;
    h := (((h - lo) + (lo # get_byte(b, i))) * 1099511628211) % 18446744073709551616;
  END LOOP;
  IF h >= 9223372036854775808 THEN
    h := h - 18446744073709551616;
  END IF;
  RETURN h::bigint;
END
$function$;
COMMENT ON FUNCTION admit_fnv64(p_text text) IS 'The lock key of a namespaced name: FNV-1a 64 over its UTF-8 bytes as a signed bigint, the same as lockKey() in functions/core/lock-keys.ts.';

CREATE OR REPLACE FUNCTION public.admit_ms_to_ts(ms numeric)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT 'epoch'::timestamptz + ms * interval '1 millisecond'
$function$;
COMMENT ON FUNCTION admit_ms_to_ts(ms numeric) IS 'Epoch milliseconds to timestamptz.';

CREATE OR REPLACE FUNCTION public.admit_page(p_items json[], p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT json_build_object(
    'items', coalesce(json_agg(x.j ORDER BY x.n) FILTER (WHERE x.keep), '[]'::json),
    'more', coalesce(bool_or(NOT x.keep), false))
  FROM (SELECT t.j, t.n,
               t.n = 1 OR (t.n <= p_limit AND sum(octet_length(t.j::text)) OVER (ORDER BY t.n) <= p_max_bytes) AS keep
          FROM unnest(p_items) WITH ORDINALITY AS t(j, n)) x
$function$;
COMMENT ON FUNCTION admit_page(p_items json[], p_limit integer, p_max_bytes integer) IS 'One page of a list read: the first items while they number at most p_limit and their JSON fits p_max_bytes (the first always), and whether any was left out.';

CREATE OR REPLACE FUNCTION public.admit_rfc3339(t timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE STRICT
AS $function$
  SELECT regexp_replace(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0+$', '') || 'Z'
$function$;
COMMENT ON FUNCTION admit_rfc3339(t timestamp with time zone) IS 'A time as RFC 3339 in UTC with a Z, trailing zero fractions trimmed: every time leaves the database already formatted.';

CREATE OR REPLACE FUNCTION public.admit_sweep()
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_sweep() IS 'One batch of every sweeper (admit_sweep_<area>()), in one transaction: housekeeping by hand.';

CREATE OR REPLACE FUNCTION public.admit_sweep_batch(p_name text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM admit_sweepers() s WHERE s = p_name) THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT %I()', 'admit_sweep_' || p_name) INTO n;
  RETURN coalesce(n, 0);
END
$function$;
COMMENT ON FUNCTION admit_sweep_batch(p_name text) IS 'One batch of one sweeper, in its own statement: the rows it changed (0: nothing left now); NULL for a name that is not a sweeper.';

CREATE OR REPLACE FUNCTION public.admit_sweepers()
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT substr(p.proname, length('admit_sweep_') + 1)
    FROM pg_proc p
    JOIN pg_namespace ns ON ns.oid = p.pronamespace
   WHERE p.proname LIKE 'admit\_sweep\_%' AND p.pronargs = 0 AND ns.nspname = current_schema()
   ORDER BY p.proname
$function$;
COMMENT ON FUNCTION admit_sweepers() IS 'The sweepers the migrations define (admit_sweep_<area>() RETURNS integer), by name: what the cron runs.';

CREATE OR REPLACE FUNCTION public.admit_ts_to_ms(t timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT extract(epoch FROM t) * 1000
$function$;
COMMENT ON FUNCTION admit_ts_to_ms(t timestamp with time zone) IS 'timestamptz to epoch milliseconds (numeric, fractions kept).';
