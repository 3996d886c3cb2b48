-- Reads the dashboard needs (issue 22) that the API lacked: lists of what exists, so a view never
-- guesses names. Each is one STABLE statement, bounded (LIMIT p_limit + 1, so the caller knows there
-- is a next page) and keyset-paged by name; none takes a lock.

-- Rate-limit policies by name, after p_after.
CREATE FUNCTION admit_ratelimit_list_policies(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE p_after IS NULL OR name > p_after
           ORDER BY name LIMIT p_limit + 1) p
$$;

-- Every override of one policy (all keys), by key then start; NULL when the policy does not exist.
CREATE FUNCTION admit_ratelimit_list_policy_overrides(p_policy text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY o.key, lower(o.valid)), '[]'::json)
       FROM (SELECT * FROM ratelimit_overrides WHERE policy = p_policy ORDER BY key, lower(valid) LIMIT p_limit) o)
  END
$$;

-- Semaphores by name, after p_after, each as admit_semaphore_state() shows it (size, use, holders).
CREATE FUNCTION admit_semaphore_list(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_semaphore_state(s.name) ORDER BY s.name), '[]'::json)
    FROM (SELECT name FROM semaphores
           WHERE p_after IS NULL OR name > p_after
           ORDER BY name LIMIT p_limit + 1) s
$$;

-- Leases held now (unexpired, neither released nor timed out), by key, after p_after, optionally
-- only keys starting with p_prefix; in admit_lease_state()'s shape.
CREATE FUNCTION admit_lease_list(p_prefix text, p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
           'key', p.name,
           'held', true,
           'holder', p.holder,
           'fencing_token', p.fencing_token,
           'claimed_at', admit_rfc3339(p.claimed_at),
           'expires_at', admit_rfc3339(p.expires_at)) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM permits
           WHERE kind = 'lease' AND released_at IS NULL AND timed_out_at IS NULL
             AND expires_at > clock_timestamp()
             AND (p_prefix IS NULL OR starts_with(name, p_prefix))
             AND (p_after IS NULL OR name > p_after)
           ORDER BY name LIMIT p_limit + 1) p
$$;

-- Webhook sources by name, after p_after (never their secrets).
CREATE FUNCTION admit_webhook_list_sources(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE p_after IS NULL OR source > p_after
           ORDER BY source LIMIT p_limit + 1) s
$$;

-- admit_list_reservations with the cancelled ones too (history), in the same order and pages.
CREATE FUNCTION admit_list_reservations_history(p_resource text, p_from timestamptz, p_to timestamptz,
                                                p_after_start timestamptz, p_after_id uuid, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), '[]'::json)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource
             AND during && tstzrange(p_from, p_to, '[)')
             AND (p_after_start IS NULL OR (lower(during), id) > (p_after_start, p_after_id))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;
