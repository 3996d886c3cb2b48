-- Exactly-once webhook receiving (issue 6), Standard Webhooks senders.
--
-- A sender is registered as a source with its signing secret. POST /v1/webhooks/:source verifies
-- the signature in the Worker (the `standardwebhooks` package) with the secret read by
-- admit_webhook_source_for_delivery(), which also checks the timestamp window on the database clock,
-- then admit_webhook_receive() stores the event once per (source, webhook-id):
-- INSERT … ON CONFLICT DO NOTHING.
--
-- Consumers pull with admit_webhook_claim() (FOR UPDATE SKIP LOCKED, a visibility timeout) and
-- acknowledge with admit_webhook_ack(). With an ordering key (a JSON pointer into the payload) only
-- the oldest unprocessed event of each ordering value is claimable, so events sharing a value are
-- never claimed concurrently and are handed out in received order.

CREATE TABLE webhook_sources (
  source       text PRIMARY KEY,
  secret       text NOT NULL,             -- whsec_…; never returned by any endpoint
  tolerance_s  integer NOT NULL DEFAULT 300,
  ordering_key text,                      -- RFC 6901 JSON pointer, e.g. /data/subscription_id
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_sources_name CHECK (source ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' AND source <> 'sources'),
  CONSTRAINT webhook_sources_tolerance CHECK (tolerance_s BETWEEN 1 AND 86400),
  CONSTRAINT webhook_sources_ordering_key CHECK (ordering_key IS NULL OR ordering_key ~ '^(/([^~/]|~[01])*)+$')
);

CREATE TABLE webhook_events (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq               bigint GENERATED ALWAYS AS IDENTITY,   -- received order
  source            text NOT NULL REFERENCES webhook_sources ON DELETE CASCADE,
  webhook_id        text NOT NULL,
  webhook_timestamp timestamptz NOT NULL,
  payload           json NOT NULL,                         -- the body as sent (json keeps its text)
  ordering_value    text,                                  -- payload at the source's ordering key, when set
  received_at       timestamptz NOT NULL DEFAULT now(),
  claim_expires_at  timestamptz,
  claims            integer NOT NULL DEFAULT 0,
  processed_at      timestamptz,
  CONSTRAINT webhook_events_once UNIQUE (source, webhook_id),
  CONSTRAINT webhook_events_id_length CHECK (char_length(webhook_id) BETWEEN 1 AND 255)
);

CREATE INDEX webhook_events_pending ON webhook_events (source, seq) WHERE processed_at IS NULL;
CREATE INDEX webhook_events_ordering ON webhook_events (source, ordering_value, seq)
  WHERE processed_at IS NULL AND ordering_value IS NOT NULL;
CREATE INDEX webhook_events_by_source ON webhook_events (source, seq);
CREATE INDEX webhook_events_processed ON webhook_events (processed_at) WHERE processed_at IS NOT NULL;

-- The public view of a source: never the secret.
CREATE FUNCTION admit_webhook_source_json(s webhook_sources) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('source', s.source, 'tolerance_s', s.tolerance_s, 'ordering_key', s.ordering_key,
                           'created_at', admit_rfc3339(s.created_at), 'updated_at', admit_rfc3339(s.updated_at))
$$;

-- Registers or replaces a sender. Returns {created, source: {...}}.
CREATE FUNCTION admit_webhook_put_source(p_source text, p_secret text, p_tolerance_s integer, p_ordering_key text)
RETURNS json
LANGUAGE sql AS $$
  INSERT INTO webhook_sources AS s (source, secret, tolerance_s, ordering_key)
  VALUES (p_source, p_secret, p_tolerance_s, p_ordering_key)
  ON CONFLICT (source) DO UPDATE
     SET secret = excluded.secret, tolerance_s = excluded.tolerance_s,
         ordering_key = excluded.ordering_key, updated_at = now()
  RETURNING json_build_object('created', s.xmax = 0, 'source', admit_webhook_source_json(s))
$$;

CREATE FUNCTION admit_webhook_get_source(p_source text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_webhook_source_json(s) FROM webhook_sources s WHERE s.source = p_source
$$;

-- What the receiver needs to verify a delivery: the secret, and whether the signed timestamp
-- (unix seconds) lies within ±tolerance_s of the database clock. NULL for an unknown source.
CREATE FUNCTION admit_webhook_source_for_delivery(p_source text, p_timestamp bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
           'secret', s.secret,
           'tolerance_s', s.tolerance_s,
           'ordering_key', s.ordering_key,
           'skew_s', p_timestamp - extract(epoch FROM now())::bigint,
           'fresh', abs(p_timestamp - extract(epoch FROM now())) <= s.tolerance_s)
    FROM webhook_sources s WHERE s.source = p_source
$$;

-- Stores a verified delivery once. Returns {id, duplicate}. Separate statements so that, after
-- waiting on a concurrent insert of the same webhook-id, the lookup sees it committed.
-- With an ordering value (read from the payload in the Worker), deliveries of that value are
-- serialised on pg_advisory_xact_lock(p_lock_key) until they commit, so within one value `seq`
-- order is commit order: no claim can see a later event of the value without the earlier ones.
CREATE FUNCTION admit_webhook_receive(
  p_source text, p_webhook_id text, p_timestamp bigint, p_payload text,
  p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid;
BEGIN
  IF p_lock_key IS NOT NULL THEN
    PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
    PERFORM pg_advisory_xact_lock(p_lock_key);
  END IF;
  INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, payload, ordering_value)
  SELECT s.source, p_webhook_id, to_timestamp(p_timestamp), p_payload::json, p_ordering_value
    FROM webhook_sources s WHERE s.source = p_source
  ON CONFLICT (source, webhook_id) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NOT NULL THEN
    RETURN json_build_object('id', v_id, 'duplicate', false);
  END IF;
  SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = p_webhook_id;
  RETURN json_build_object('id', v_id, 'duplicate', true);  -- id NULL: the source was deleted meanwhile
END
$$;

CREATE FUNCTION admit_webhook_event_json(e webhook_events) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', e.id,
    'webhook_id', e.webhook_id,
    'payload', e.payload,
    'status', CASE WHEN e.processed_at IS NOT NULL THEN 'processed'
                   WHEN e.claim_expires_at > now() THEN 'claimed' ELSE 'received' END,
    'ordering_value', e.ordering_value,
    'webhook_timestamp', admit_rfc3339(e.webhook_timestamp),
    'received_at', admit_rfc3339(e.received_at),
    'claim_expires_at', admit_rfc3339(e.claim_expires_at),
    'claims', e.claims,
    'processed_at', admit_rfc3339(e.processed_at))
$$;

-- Claims up to p_limit claimable events of a source, oldest first, for p_visibility_ms.
-- Claimable: unprocessed, no live claim, and (with an ordering value) no older unprocessed event
-- of the same value and none of that value in a consumer's hands. Rows another consumer is claiming right now are skipped, not waited for.
-- Returns {events: [...]}; NULL for an unknown source.
CREATE FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer)
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
           claims = e.claims + 1
      FROM picked WHERE e.id = picked.id
    RETURNING e.*
  )
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE json_build_object('events', coalesce(
           (SELECT json_agg(json_build_object('id', c.id, 'webhook_id', c.webhook_id, 'payload', c.payload,
                                              'ordering_value', c.ordering_value,
                                              'received_at', admit_rfc3339(c.received_at),
                                              'claim_expires_at', admit_rfc3339(c.claim_expires_at))
                            ORDER BY c.seq) FROM claimed c), '[]'::json)) END
$$;

-- Marks an event processed (again: no-op). NULL when the source has no such event.
CREATE FUNCTION admit_webhook_ack(p_source text, p_id uuid) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  e webhook_events;
BEGIN
  -- Lock first: a concurrent ack of the same event is waited for, and FOR UPDATE then reads the
  -- version it committed, so a second ack answers "processed" too (never its own older snapshot).
  SELECT * INTO e FROM webhook_events WHERE id = p_id AND source = p_source FOR UPDATE;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF e.processed_at IS NULL THEN
    UPDATE webhook_events SET processed_at = now(), claim_expires_at = NULL WHERE id = p_id RETURNING * INTO e;
  END IF;
  RETURN admit_webhook_event_json(e);
END
$$;

-- Events of a source in received order after seq p_after, optionally of one status; up to p_limit + 1
-- so the caller knows a next page exists. {items: [...], seqs: [...]}; NULL for an unknown source.
CREATE FUNCTION admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer)
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE json_build_object(
           'items', coalesce(json_agg(admit_webhook_event_json(e) ORDER BY e.seq), '[]'::json),
           'seqs', coalesce(json_agg(e.seq ORDER BY e.seq), '[]'::json)) END
    FROM (SELECT * FROM webhook_events
           WHERE source = p_source AND seq > coalesce(p_after, 0)
             AND CASE p_status
                   WHEN 'processed' THEN processed_at IS NOT NULL
                   WHEN 'claimed' THEN processed_at IS NULL AND claim_expires_at > now()
                   WHEN 'received' THEN processed_at IS NULL AND (claim_expires_at IS NULL OR claim_expires_at <= now())
                   ELSE true END
           ORDER BY seq LIMIT p_limit + 1) e
$$;

-- Retention: processed events are kept 7 days (for inspection and as the dedup record of their
-- webhook-id, far beyond any sender's retry window), then deleted in batches of 10000.
-- Unprocessed events are never swept.
CREATE FUNCTION admit_sweep_webhook_events() RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM webhook_events
     WHERE id IN (SELECT id FROM webhook_events
                   WHERE processed_at IS NOT NULL AND processed_at < now() - interval '7 days'
                   ORDER BY processed_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
