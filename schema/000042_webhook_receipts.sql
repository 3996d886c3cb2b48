-- Webhook acks name the claim they close (issue 18, item 2).
--
-- 000041's ack processed an event whoever acked it. When consumer A's claim lapsed and B re-claimed
-- the event, A's late ack marked it processed and cleared B's claim, so the next event of the same
-- ordering value went to C while B was still working on its predecessor.
--
-- Now every claim hands each event a fresh `receipt`; an ack must carry the receipt of the event's
-- live claim. Any other receipt (a lapsed claim, another consumer's, none) is refused with
-- {"status":"not_current",…} and changes nothing. The receipt stays on the row once processed, so
-- acking again with the receipt that processed it is still the no-op that returns the event.

ALTER TABLE webhook_events ADD COLUMN claim_receipt uuid;

CREATE OR REPLACE FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer)
RETURNS json
LANGUAGE sql AS $$
  WITH picked AS (
    SELECT e.id FROM webhook_events e
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
  ), claimed AS (
    UPDATE webhook_events e
       SET claim_expires_at = clock_timestamp() + make_interval(secs => p_visibility_ms / 1000.0),
           claims = e.claims + 1,
           claim_receipt = gen_random_uuid()
      FROM picked WHERE e.id = picked.id
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

-- The ack without a receipt could close anyone's claim: gone.
DROP FUNCTION admit_webhook_ack(text, uuid);

-- Marks an event processed if p_receipt is its live claim's receipt; returns the event. Again with the
-- receipt that processed it: the same event, unchanged. Any other receipt:
-- {"status":"not_current","state":"processed"|"expired"|"superseded"|"unclaimed","claim_expires_at":…}.
-- NULL when the source has no such event.
CREATE FUNCTION admit_webhook_ack(p_source text, p_id uuid, p_receipt uuid) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  e webhook_events;
BEGIN
  -- Lock first: a concurrent ack or claim of the same event is waited for, and FOR UPDATE then reads
  -- the version it committed.
  SELECT * INTO e FROM webhook_events WHERE id = p_id AND source = p_source FOR UPDATE;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF e.claim_receipt = p_receipt AND e.processed_at IS NOT NULL THEN
    RETURN admit_webhook_event_json(e);
  END IF;
  IF e.claim_receipt = p_receipt AND e.claim_expires_at > clock_timestamp() THEN
    UPDATE webhook_events SET processed_at = now(), claim_expires_at = NULL WHERE id = p_id RETURNING * INTO e;
    RETURN admit_webhook_event_json(e);
  END IF;
  RETURN json_build_object(
    'status', 'not_current',
    'state', CASE WHEN e.processed_at IS NOT NULL THEN 'processed'
                  WHEN e.claim_receipt = p_receipt THEN 'expired'
                  WHEN e.claim_receipt IS NOT NULL THEN 'superseded'
                  ELSE 'unclaimed' END,
    'claim_expires_at', admit_rfc3339(e.claim_expires_at));
END
$$;
