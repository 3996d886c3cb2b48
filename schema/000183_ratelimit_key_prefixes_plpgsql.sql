-- The prefixes a pattern-override look-up probes, computed by PL/pgSQL: as a SQL function with a
-- subquery it could not be inlined, so each check of a policy with patterns started the SQL
-- function executor anew (several hundredths of a millisecond of the database's time per check).
CREATE OR REPLACE FUNCTION admit_ratelimit_key_prefixes(p_key text, p_lengths integer[])
 RETURNS text[]
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_out text[] := ARRAY[p_key];
  v_len integer := length(p_key);
  l integer;
BEGIN
  FOREACH l IN ARRAY p_lengths LOOP
    IF l < v_len THEN v_out := v_out || left(p_key, l); END IF;
  END LOOP;
  RETURN v_out;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_key_prefixes(text, integer[]) IS 'The prefixes an override lookup probes for a key: the key itself, and its first l characters for each pattern prefix length l shorter than it.';
