-- The list reads, bounded by their indexes (review of 000060):
-- * Keyset conditions written `p_after IS NULL OR name > p_after` cannot be an index condition in a
--   SQL function, whose statements are planned with parameters unknown: the index was walked from
--   the first row and filtered, so page N cost N pages. `name > coalesce(p_after, '')` (every name
--   has at least one character) and a row comparison against a floor are plain index ranges.
-- * The reservation history (cancelled ones too) had no index: both indexes on reservations are
--   partial on cancelled_at IS NULL, so every page was a scan of the whole table. Now an index of
--   every reservation by (resource, start, id).
-- * A policy's overrides were cut at p_limit with nothing to say more exist: now keyset-paged by
--   (key, valid_from), p_limit + 1 like every other list, on an index in that order.

CREATE INDEX reservations_all_by_start ON reservations (resource, lower(during), id);
CREATE INDEX ratelimit_overrides_by_key_start ON ratelimit_overrides (policy, key, lower(valid));

CREATE OR REPLACE FUNCTION admit_ratelimit_list_policies(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$$;

-- Every override of one policy (all keys), by key then start, after the (key, start) cursor;
-- NULL when the policy does not exist.
DROP FUNCTION admit_ratelimit_list_policy_overrides(text, integer);
CREATE FUNCTION admit_ratelimit_list_policy_overrides(p_policy text, p_after_key text, p_after_start timestamptz, p_limit integer)
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY o.key, lower(o.valid)), '[]'::json)
       FROM (SELECT * FROM ratelimit_overrides
              WHERE policy = p_policy
                AND (key, lower(valid)) > (coalesce(p_after_key, ''), coalesce(p_after_start, '-infinity'))
              ORDER BY key, lower(valid) LIMIT p_limit + 1) o)
  END
$$;

CREATE OR REPLACE FUNCTION admit_semaphore_list(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_semaphore_state(s.name) ORDER BY s.name), '[]'::json)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) s
$$;

CREATE OR REPLACE FUNCTION admit_lease_list(p_prefix text, p_after text, p_limit integer) RETURNS json
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
             AND name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$$;

CREATE OR REPLACE FUNCTION admit_webhook_list_sources(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE source > coalesce(p_after, '')
           ORDER BY source LIMIT p_limit + 1) s
$$;

CREATE OR REPLACE FUNCTION admit_list_reservations(
  p_resource text, p_from timestamptz, p_to timestamptz,
  p_after_start timestamptz, p_after_id uuid, p_limit integer
) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), '[]'::json)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource AND cancelled_at IS NULL
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;

CREATE OR REPLACE FUNCTION admit_list_reservations_history(p_resource text, p_from timestamptz, p_to timestamptz,
                                                           p_after_start timestamptz, p_after_id uuid, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), '[]'::json)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;
