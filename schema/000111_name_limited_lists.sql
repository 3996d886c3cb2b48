-- Lists as a key bounded by name patterns sees them: only the names it may read, in the items, the
-- page's length and its cursor. Each list read takes p_names, the key's patterns as LIKE patterns
-- ('*' as '%', every other character literal: functions/core/scopes.ts likePatterns), NULL for every
-- name, and pages over the matching rows only: a page holds up to p_limit names the key may see, and
-- its cursor (the last of them) never names one it may not. Filtering the Worker's answer instead
-- left pages emptied of hidden names whose cursor was the next hidden name itself.
--
-- A key's own row is visible to a bounded key when the key's patterns are all within the caller's
-- (the keys it could have made: functions/core/scopes.ts covers); an audit row when its target is a
-- name the caller may read, or a key visible so. Same pages and keyset conditions as before.

DROP FUNCTION admit_ratelimit_list_policies(text, integer);
CREATE FUNCTION admit_ratelimit_list_policies(p_after text, p_limit integer, p_names text[]) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE name > coalesce(p_after, '')
             AND (p_names IS NULL OR name LIKE ANY (p_names))
           ORDER BY name LIMIT p_limit + 1) p
$$;

DROP FUNCTION admit_lease_list(text, text, integer);
CREATE FUNCTION admit_lease_list(p_prefix text, p_after text, p_limit integer, p_names text[]) RETURNS json
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
             AND (p_names IS NULL OR name LIKE ANY (p_names))
             AND name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$$;

DROP FUNCTION admit_webhook_list_sources(text, integer);
CREATE FUNCTION admit_webhook_list_sources(p_after text, p_limit integer, p_names text[]) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE source > coalesce(p_after, '')
             AND (p_names IS NULL OR source LIKE ANY (p_names))
           ORDER BY source LIMIT p_limit + 1) s
$$;

DROP FUNCTION admit_semaphore_list(text, integer, integer, integer);
CREATE FUNCTION admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer, p_names text[]) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_page(array_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), p_limit, p_max_bytes)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
             AND (p_names IS NULL OR name LIKE ANY (p_names))
           ORDER BY name LIMIT p_limit + 1) s
$$;

-- Whether a key whose patterns are `p_key_names` (NULL: every name) lies within `p_names` (LIKE
-- patterns; NULL: every name): each of its patterns, read literally, matches one of them.
CREATE FUNCTION admit_key_visible(p_key_names text[], p_names text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_names IS NULL
      OR (p_key_names IS NOT NULL AND NOT EXISTS (SELECT 1 FROM unnest(p_key_names) n WHERE NOT (n LIKE ANY (p_names))))
$$;

DROP FUNCTION admit_key_list(timestamptz, uuid, integer);
CREATE FUNCTION admit_key_list(p_after_at timestamptz, p_after_id uuid, p_limit integer, p_names text[]) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(admit_key_json(k) ORDER BY k.created_at, k.id), '[]'::jsonb)
    FROM (SELECT * FROM admit_keys
           WHERE (p_after_at IS NULL OR (created_at, id) > (p_after_at, p_after_id))
             AND admit_key_visible(names, p_names)
           ORDER BY created_at, id
           LIMIT p_limit + 1) k
$$;

DROP FUNCTION admit_audit_list(text, text, timestamptz, timestamptz, timestamptz, bigint, integer);
CREATE FUNCTION admit_audit_list(p_target text, p_key text, p_from timestamptz, p_to timestamptz, p_before_at timestamptz, p_before_id bigint, p_limit integer,
                                 p_names text[])
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', a.at, 'key', jsonb_build_object('id', a.key_id, 'name', a.key_name),
           'action', a.action, 'target', a.target, 'change', a.change) ORDER BY a.at DESC, a.id DESC), '[]'::jsonb)
    FROM (SELECT * FROM admit_audit
           WHERE (p_target IS NULL OR target = p_target)
             AND (p_key IS NULL OR (p_key = 'root' AND key_id IS NULL) OR key_id::text = p_key)
             AND (p_from IS NULL OR at >= p_from)
             AND (p_to IS NULL OR at < p_to)
             AND (p_before_at IS NULL OR (at, id) < (p_before_at, p_before_id))
             AND (p_names IS NULL
                  OR CASE WHEN starts_with(action, 'keys.')
                          THEN EXISTS (SELECT 1 FROM admit_keys k WHERE k.id::text = target AND admit_key_visible(k.names, p_names))
                          ELSE target LIKE ANY (p_names) END)
           ORDER BY at DESC, id DESC
           LIMIT p_limit + 1) a
$$;
