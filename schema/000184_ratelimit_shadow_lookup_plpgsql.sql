-- Whether a check is in shadow mode, asked of every check's answer (admit_ratelimit_shadowed,
-- admit_ratelimit_shadowed_batch, admit_ratelimit_check_multi). As a SQL function that Postgres
-- cannot inline (it is called from PL/pgSQL with a row argument), each call planned its query
-- anew. In PL/pgSQL its queries keep their plans, and the usual case (policy not in shadow, no
-- override of it in shadow) is one probe of the partial index of shadowed overrides, usually empty.
CREATE OR REPLACE FUNCTION admit_ratelimit_in_shadow(p_pol ratelimit_policies, p_key text, p_now timestamptz)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  IF p_pol.shadow THEN RETURN true; END IF;
  IF NOT EXISTS (SELECT FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.shadow) THEN RETURN false; END IF;
  -- Without patterns, only the key's own shadowed override in force matters.
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    RETURN EXISTS (SELECT FROM ratelimit_overrides o
                    WHERE o.policy = p_pol.name AND o.key = p_key AND o.shadow AND o.valid @> p_now);
  END IF;
  RETURN coalesce((admit_ratelimit_override_in_force(p_pol, p_key, p_now)).shadow, false);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_in_shadow(ratelimit_policies, text, timestamptz) IS 'Whether checks of (policy, key) at p_now are in shadow mode: the policy is, or the override in force for the key (exact, else most specific pattern) is; the override is looked for only when some override of the policy is in shadow.';

-- A batch's answers under shadow mode. Unless a policy of the batch is in shadow or has an override
-- in shadow, every answer stands as it is: one statement over the batch instead of a policy read
-- and a shadow look-up per answer.
CREATE OR REPLACE FUNCTION admit_ratelimit_shadowed_batch(p_res json, p_items jsonb)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_out json[] := '{}';
  n integer := json_array_length(p_res);
BEGIN
  IF NOT EXISTS (
       SELECT FROM ratelimit_policies p
        WHERE p.name IN (SELECT e ->> 'p' FROM jsonb_array_elements(p_items) e WHERE e ? 'p')
          AND (p.shadow OR EXISTS (SELECT FROM ratelimit_overrides o WHERE o.policy = p.name AND o.shadow))) THEN
    RETURN p_res;
  END IF;
  -- In the batch's own lock order (key, then policy): the counter rows are already locked by it.
  FOR i IN 0 .. n - 1 LOOP
    v_out[i + 1] := CASE WHEN p_items -> i ? 'p' THEN admit_ratelimit_shadowed(p_res -> i, (p_items -> i ->> 'c')::integer) ELSE p_res -> i END;
  END LOOP;
  RETURN array_to_json(v_out);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_shadowed_batch(json, jsonb) IS 'admit_ratelimit_shadowed over the answers of admit_ratelimit_check_batch (its single-policy items; several-policies items decide shadow mode themselves); the answers as they are when no policy of the batch is in shadow or has an override in shadow.';
