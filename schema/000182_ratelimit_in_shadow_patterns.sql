-- Shadow mode of a policy with pattern overrides: the override in force (a probe of the key's
-- prefixes) is looked for only when some override of the policy is in shadow, which the partial
-- index of shadowed overrides answers at once (it is empty unless shadow mode is used). Every
-- check of such a policy runs this through admit_ratelimit_shadowed, so the usual case (no
-- shadowed override) costs one probe of an empty index, not a second look-up of the overrides.
CREATE OR REPLACE FUNCTION admit_ratelimit_in_shadow(p_pol ratelimit_policies, p_key text, p_now timestamptz)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  -- Without patterns, only shadowed exact overrides matter (a partial index of those, usually empty).
  SELECT p_pol.shadow OR CASE
    WHEN p_pol.pattern_prefix_lengths = '{}' THEN
      EXISTS (SELECT 1 FROM ratelimit_overrides o
               WHERE o.policy = p_pol.name AND o.key = p_key AND o.shadow AND o.valid @> p_now)
    ELSE EXISTS (SELECT 1 FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.shadow)
         AND coalesce((admit_ratelimit_override_in_force(p_pol, p_key, p_now)).shadow, false)
  END
$function$;
COMMENT ON FUNCTION admit_ratelimit_in_shadow(ratelimit_policies, text, timestamptz) IS 'Whether checks of (policy, key) at p_now are in shadow mode: the policy is, or the override in force for the key (exact, else most specific pattern) is; the override is looked for only when some override of the policy is in shadow.';
