-- The list reads (issue 22's dashboard needs them; the API lacked lists of what exists), and the
-- bounds every list keeps:
-- * Each is one STABLE statement, keyset-paged (LIMIT p_limit + 1, so the caller knows there is a
--   next page), and takes no lock. Keyset conditions are plain ranges (`name > coalesce(p_after,
--   '')`, row comparisons against a floor): `p_after IS NULL OR name > p_after` cannot be an index
--   condition in a SQL function's generic plan, so page N would cost N pages.
-- * A page is bounded in bytes as well as in items (admit_page). Neon's HTTP SQL endpoint, which
--   reads use, answers at most 10 MiB; a page of 1 000 webhook events of 64 KiB payloads, of
--   reservations with large metadata, or of semaphores with 100 holders each was over it and failed
--   every time as "database unavailable". A webhook claim is bounded the same way.
-- * A semaphore in a list carries its p_holders lowest-slot holders and `more_holders`, the count of
--   the rest (GET /v1/semaphores/{name} lists them all): up to 10 000 each, a page could carry
--   millions, and the dashboard asks for it every 2 s.

CREATE INDEX reservations_all_by_start ON reservations (resource, lower(during), id);
CREATE INDEX ratelimit_overrides_by_key_start ON ratelimit_overrides (policy, key, lower(valid));

-- One page of `p_items` (in order; up to p_limit + 1 of them were read): the first items while they
-- number at most p_limit and their JSON adds up to at most p_max_bytes, the first always; `more`
-- when any was left out.
CREATE FUNCTION admit_page(p_items json[], p_limit integer, p_max_bytes integer) RETURNS json
LANGUAGE sql IMMUTABLE AS $$
  SELECT json_build_object(
    'items', coalesce(json_agg(x.j ORDER BY x.n) FILTER (WHERE x.keep), '[]'::json),
    'more', coalesce(bool_or(NOT x.keep), false))
  FROM (SELECT t.j, t.n,
               t.n = 1 OR (t.n <= p_limit AND sum(octet_length(t.j::text)) OVER (ORDER BY t.n) <= p_max_bytes) AS keep
          FROM unnest(p_items) WITH ORDINALITY AS t(j, n)) x
$$;

-- Rate-limit policies by name, after p_after.
CREATE FUNCTION admit_ratelimit_list_policies(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$$;

-- Every override of one policy (all keys), by key then start, after the (key, start) cursor;
-- NULL when the policy does not exist.
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
             AND name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$$;

-- Webhook sources by name, after p_after (never their secrets).
CREATE FUNCTION admit_webhook_list_sources(p_after text, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE source > coalesce(p_after, '')
           ORDER BY source LIMIT p_limit + 1) s
$$;

-- A semaphore's size, use and p_holders lowest-slot holders (NULL: all of them), with `more_holders`.
-- The use count and the holders are read at one instant, so that in_use = holders listed +
-- more_holders even while claims expire.
CREATE FUNCTION admit_semaphore_json(p_name text, p_holders integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', s.name,
    'permits', s.permits,
    'default_ttl_ms', s.default_ttl_ms,
    'in_use', u.n,
    'available', greatest(s.permits - u.n, 0),
    'holders', coalesce(h.list, '[]'::json),
    'more_holders', u.n - h.k,
    'created_at', admit_rfc3339(s.created_at),
    'updated_at', admit_rfc3339(s.updated_at))
  FROM semaphores s
  CROSS JOIN (SELECT clock_timestamp() AS t) at_
  CROSS JOIN LATERAL (
    -- The count walks this semaphore's claims (permits_one_per_slot), not every unfinished claim of
    -- every semaphore and lease by expiry, which the planner otherwise picks: `(… > t) IS TRUE` is
    -- the same test, not an index condition. Measured: 16 ms → 2 ms for a semaphore of 5 000 holders
    -- among 100 000.
    SELECT count(*)::integer AS n
      FROM permits p
     WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
       AND (p.expires_at > at_.t) IS TRUE
  ) u
  CROSS JOIN LATERAL (
    SELECT count(*)::integer AS k,
           json_agg(json_build_object('slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
                                      'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
                    ORDER BY p.slot) AS list
      FROM (SELECT * FROM permits p
             WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
               AND p.expires_at > at_.t
             ORDER BY p.slot LIMIT p_holders) p
  ) h
  WHERE s.name = p_name
$$;

-- One semaphore: every holder.
CREATE OR REPLACE FUNCTION admit_semaphore_state(p_name text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_semaphore_json(p_name, NULL)
$$;

CREATE FUNCTION admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_page(array_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), p_limit, p_max_bytes)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) s
$$;

DROP FUNCTION admit_list_reservations(text, timestamptz, timestamptz, timestamptz, uuid, integer);
CREATE FUNCTION admit_list_reservations(
  p_resource text, p_from timestamptz, p_to timestamptz,
  p_after_start timestamptz, p_after_id uuid, p_limit integer, p_max_bytes integer
) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_page(array_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), p_limit, p_max_bytes)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource AND cancelled_at IS NULL
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;

-- admit_list_reservations with the cancelled ones too (history), in the same order and pages, on
-- an index of every reservation (the others cover active ones only).
CREATE FUNCTION admit_list_reservations_history(
  p_resource text, p_from timestamptz, p_to timestamptz,
  p_after_start timestamptz, p_after_id uuid, p_limit integer, p_max_bytes integer
) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_page(array_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), p_limit, p_max_bytes)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;

-- Each item carries its event and its seq (the cursor); null: no such source.
DROP FUNCTION admit_webhook_list(text, text, bigint, integer);
CREATE FUNCTION admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer, p_max_bytes integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE admit_page(array_agg(json_build_object('seq', e.seq, 'event', admit_webhook_event_json(e)) ORDER BY e.seq), p_limit, p_max_bytes) END
    FROM (SELECT * FROM webhook_events
           WHERE source = p_source AND seq > coalesce(p_after, 0)
             AND CASE p_status
                   WHEN 'processed' THEN processed_at IS NOT NULL
                   WHEN 'claimed' THEN processed_at IS NULL AND claim_expires_at > now()
                   WHEN 'received' THEN processed_at IS NULL AND (claim_expires_at IS NULL OR claim_expires_at <= now())
                   ELSE true END
           ORDER BY seq LIMIT p_limit + 1) e
$$;

-- A claim hands out events while their payloads add up to at most p_max_bytes (the first always):
-- 100 payloads of 64 KiB, escaped inside Neon's answer, could pass its 10 MiB after the claim had
-- committed, leaving claimed events whose receipts nobody got until their visibility ran out. The
-- events picked beyond the budget are locked for this statement only and stay claimable.
DROP FUNCTION admit_webhook_claim(text, integer, integer);
CREATE FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer) RETURNS json
LANGUAGE sql AS $$
  WITH picked AS (
    SELECT e.id, e.seq, octet_length(e.payload::text) AS size FROM webhook_events e
     WHERE e.source = p_source AND e.processed_at IS NULL
       AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= clock_timestamp())
       AND (e.ordering_value IS NULL OR NOT EXISTS (
             SELECT 1 FROM webhook_events o
              WHERE o.source = e.source AND o.ordering_value = e.ordering_value AND o.id <> e.id
                AND o.processed_at IS NULL
                AND (o.seq < e.seq OR o.claim_expires_at > clock_timestamp())))
     ORDER BY e.seq
     LIMIT p_limit
     FOR UPDATE OF e SKIP LOCKED
  ), kept AS (
    SELECT id FROM (SELECT id, row_number() OVER (ORDER BY seq) AS n, sum(size) OVER (ORDER BY seq) AS upto FROM picked) x
     WHERE n = 1 OR upto <= p_max_bytes
  ), claimed AS (
    UPDATE webhook_events e
       SET claim_expires_at = clock_timestamp() + make_interval(secs => p_visibility_ms / 1000.0),
           claims = e.claims + 1,
           claim_receipt = gen_random_uuid()
      FROM kept WHERE e.id = kept.id
    RETURNING e.*
  )
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE json_build_object('events', coalesce(
           (SELECT json_agg(json_build_object('id', c.id, 'webhook_id', c.webhook_id, 'payload', c.payload,
                                              'ordering_value', c.ordering_value,
                                              'received_at', admit_rfc3339(c.received_at),
                                              'claim_expires_at', admit_rfc3339(c.claim_expires_at),
                                              'receipt', c.claim_receipt)
                            ORDER BY c.seq) FROM claimed c), '[]'::json)) END
$$;
