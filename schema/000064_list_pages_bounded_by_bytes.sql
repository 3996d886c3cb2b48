-- A list page is bounded in bytes as well as in items. Neon's HTTP SQL endpoint, which reads use,
-- answers at most 10 MiB; a page of 1 000 webhook events of 64 KiB payloads, or of reservations
-- with large metadata, or of semaphores with 100 holders each, was over it: the read failed every
-- time as "database unavailable", and a retry could never succeed. Now a page stops before its
-- items' JSON passes p_max_bytes (it always holds its first item) and says whether more follow.

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

DROP FUNCTION admit_list_reservations_history(text, timestamptz, timestamptz, timestamptz, uuid, integer);
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

DROP FUNCTION admit_semaphore_list(text, integer, integer);
CREATE FUNCTION admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_page(array_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), p_limit, p_max_bytes)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) s
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
