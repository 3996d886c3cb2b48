-- Webhook forwarding: a source may name where its events go (an HTTPS URL, plain HTTP on loopback,
-- or a Worker over a Service Binding), and each event stored while it does is delivered there, signed
-- with Standard Webhooks headers under the source's own forward secret.
--
-- * webhook_sources.forward: the target and how to deliver ({url} or {binding, path}, timeout_ms,
--   retry_schedule_ms, ordered); forward_secret (write-only, whsec_…) and, for an overlap after a
--   rotation, forward_previous_secret until forward_previous_secret_expires_at: both sign meanwhile
--   (two v1 signatures), so a target holding either verifies. forward_stopped_at/_reason: the target
--   answered 410 Gone, and nothing is sent until the source is PUT again.
-- * webhook_events.delivery_state: NULL for an event of a source without forward (pull consumers
--   claim it), else pending → delivered | failed (the dead letter). delivery_step counts the failed
--   attempts since the event was stored or redelivered: the index into retry_schedule_ms of the next
--   delay. attempt_lease/in_flight_until: the live attempt's claim. An attempt is claimed in one
--   short transaction (FOR UPDATE SKIP LOCKED, the lease stamped, the attempt row inserted), the
--   request is sent outside any transaction, and its outcome recorded in another; a claim never
--   takes an event whose lease is live, so one event is never in flight twice, and the attempt row's
--   key (event, n) means no attempt is ever claimed twice. A lease that lapses (the sender's
--   isolate died) marks its attempt `lost` at the next claim.
-- * With forward.ordered, an event whose ordering_value has an earlier pending event is not claimed:
--   events of one value are delivered one at a time, in received order (an earlier one delivered or
--   failed lets the next go).

ALTER TABLE webhook_sources
  ADD COLUMN forward jsonb,
  ADD COLUMN forward_secret text,
  ADD COLUMN forward_previous_secret text,
  ADD COLUMN forward_previous_secret_expires_at timestamptz,
  ADD COLUMN forward_stopped_at timestamptz,
  ADD COLUMN forward_stopped_reason text,
  ADD CONSTRAINT webhook_sources_forward CHECK ((forward IS NULL) = (forward_secret IS NULL)
    AND (forward IS NULL OR (forward ? 'url') <> (forward ? 'binding'))),
  ADD CONSTRAINT webhook_sources_forward_previous CHECK ((forward_previous_secret IS NULL) = (forward_previous_secret_expires_at IS NULL));

ALTER TABLE webhook_events
  ADD COLUMN delivery_state text,
  ADD COLUMN delivery_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN delivery_step integer NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN in_flight_until timestamptz,
  ADD COLUMN attempt_lease uuid,
  ADD COLUMN delivered_at timestamptz,
  ADD COLUMN failed_at timestamptz,
  ADD CONSTRAINT webhook_events_delivery_state CHECK (delivery_state IN ('pending', 'delivered', 'failed'));

CREATE INDEX webhook_events_forward_due ON webhook_events (next_attempt_at, seq) WHERE delivery_state = 'pending';
CREATE INDEX webhook_events_forward_order ON webhook_events (source, ordering_value, seq)
  WHERE delivery_state = 'pending' AND ordering_value IS NOT NULL;
CREATE INDEX webhook_events_forward_failed ON webhook_events (source, received_at) WHERE delivery_state = 'failed';

CREATE TABLE webhook_attempts (
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  n integer NOT NULL,
  source text NOT NULL,
  lease uuid NOT NULL,
  trigger text NOT NULL CHECK (trigger IN ('received', 'schedule', 'redeliver')),
  target text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz,
  status integer,
  outcome text CHECK (outcome IN ('delivered', 'failed', 'timeout', 'error', 'gone', 'lost')),
  latency_ms integer,
  response text,
  error text,
  retry_after_ms bigint,
  PRIMARY KEY (event_id, n),
  UNIQUE (lease)
);
COMMENT ON TABLE webhook_attempts IS 'Each attempt to forward an event to its source''s target: claimed once (event, n), sent once, then its outcome (status, latency, the first bytes of the answer); outcome NULL while in flight.';

-- The event's public shape gains its delivery (null for an event nobody forwards).
CREATE OR REPLACE FUNCTION admit_webhook_event_json(e webhook_events) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', e.id,
    'webhook_id', e.webhook_id,
    'event_type', e.event_type,
    'payload', e.payload,
    'status', CASE WHEN e.processed_at IS NOT NULL THEN 'processed'
                   WHEN e.claim_expires_at > now() THEN 'claimed' ELSE 'received' END,
    'ordering_value', e.ordering_value,
    'webhook_timestamp', admit_rfc3339(e.webhook_timestamp),
    'received_at', admit_rfc3339(e.received_at),
    'claim_expires_at', admit_rfc3339(e.claim_expires_at),
    'claims', e.claims,
    'processed_at', admit_rfc3339(e.processed_at),
    'delivery', CASE WHEN e.delivery_state IS NOT NULL THEN json_build_object(
      'state', e.delivery_state,
      'attempts', e.delivery_attempts,
      'in_flight', coalesce(e.in_flight_until > now(), false),
      'next_attempt_at', admit_rfc3339(e.next_attempt_at),
      'delivered_at', admit_rfc3339(e.delivered_at),
      'failed_at', admit_rfc3339(e.failed_at)) END)
$$;
COMMENT ON FUNCTION admit_webhook_event_json(webhook_events) IS 'An event''s public shape, with its forwarding state when its source forwards.';

-- A source's public view gains its forward settings (never the forward secret).
CREATE OR REPLACE FUNCTION admit_webhook_source_json(s webhook_sources) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('source', s.source, 'scheme', s.scheme, 'tolerance_s', s.tolerance_s, 'ordering_key', s.ordering_key,
                           'hmac', s.hmac, 'replay_window_s', s.replay_window_s,
                           'previous_secret_expires_at',
                             CASE WHEN s.previous_secret_expires_at > now() THEN admit_rfc3339(s.previous_secret_expires_at) END,
                           'recent_rejections', s.recent_rejections,
                           'forward', CASE WHEN s.forward IS NOT NULL THEN (s.forward || jsonb_build_object(
                             'previous_secret_expires_at',
                               CASE WHEN s.forward_previous_secret_expires_at > now() THEN admit_rfc3339(s.forward_previous_secret_expires_at) END,
                             'stopped_at', admit_rfc3339(s.forward_stopped_at),
                             'stopped_reason', s.forward_stopped_reason))::json END,
                           'created_at', admit_rfc3339(s.created_at), 'updated_at', admit_rfc3339(s.updated_at))
$$;
COMMENT ON FUNCTION admit_webhook_source_json(webhook_sources) IS 'A source''s public view: never a secret (neither the sending nor the forward secret).';

DROP FUNCTION admit_webhook_put_source(text, text, text, bigint, integer, text, jsonb, integer);
CREATE FUNCTION admit_webhook_put_source(p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint, p_tolerance_s integer,
                                         p_ordering_key text, p_hmac jsonb, p_replay_window_s integer,
                                         p_forward jsonb, p_forward_secret text, p_forward_previous_secret_ttl_ms bigint) RETURNS json
LANGUAGE sql AS $$
  INSERT INTO webhook_sources AS s (source, scheme, secret, tolerance_s, ordering_key, hmac, replay_window_s, forward, forward_secret)
  VALUES (p_source, p_scheme, p_secret, p_tolerance_s, p_ordering_key, p_hmac, p_replay_window_s, p_forward, p_forward_secret)
  ON CONFLICT (source) DO UPDATE
     SET scheme = excluded.scheme, secret = excluded.secret, tolerance_s = excluded.tolerance_s,
         ordering_key = excluded.ordering_key, hmac = excluded.hmac, replay_window_s = excluded.replay_window_s,
         updated_at = now(),
         previous_secret = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN CASE WHEN p_previous_secret_ttl_ms IS NOT NULL THEN s.secret END
           WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END,
         previous_secret_expires_at = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0)
           WHEN s.previous_secret_expires_at > now() THEN
             coalesce(now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0), s.previous_secret_expires_at) END,
         forward = excluded.forward,
         forward_secret = excluded.forward_secret,
         -- The forward secret rotates as the sending secret does: a new one with a TTL keeps the one
         -- stored until then signing beside it for that long.
         forward_previous_secret = CASE
           WHEN excluded.forward IS NULL OR s.forward_secret IS NULL OR coalesce(p_forward_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.forward_secret <> excluded.forward_secret THEN CASE WHEN p_forward_previous_secret_ttl_ms IS NOT NULL THEN s.forward_secret END
           WHEN s.forward_previous_secret_expires_at > now() THEN s.forward_previous_secret END,
         forward_previous_secret_expires_at = CASE
           WHEN excluded.forward IS NULL OR s.forward_secret IS NULL OR coalesce(p_forward_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.forward_secret <> excluded.forward_secret THEN now() + make_interval(secs => p_forward_previous_secret_ttl_ms / 1000.0)
           WHEN s.forward_previous_secret_expires_at > now() THEN
             coalesce(now() + make_interval(secs => p_forward_previous_secret_ttl_ms / 1000.0), s.forward_previous_secret_expires_at) END,
         -- Putting the source again resumes forwarding a 410 stopped.
         forward_stopped_at = NULL,
         forward_stopped_reason = NULL
  RETURNING json_build_object('created', s.xmax = 0, 'source', admit_webhook_source_json(s))
$$;
COMMENT ON FUNCTION admit_webhook_put_source(text, text, text, bigint, integer, text, jsonb, integer, jsonb, text, bigint) IS 'Creates or updates a source, its replay window and where its events are forwarded; a new secret (sending or forward) keeps the previous one valid for its overlap; putting it again resumes forwarding a 410 stopped.';

-- Storing an event of a forwarding source makes it pending, due now; the answer says so, so the
-- receiver starts the first attempt at once.
CREATE OR REPLACE FUNCTION admit_webhook_receive(p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text,
                                                 p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer, p_earlier_ids text[],
                                                 p_signed_sha256 text, p_signed_lock_key bigint) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid;
  v_window integer;
  v_forward boolean;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  IF p_signed_sha256 IS NOT NULL THEN
    SELECT replay_window_s INTO v_window FROM webhook_sources WHERE source = p_source;
    IF v_window IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(p_signed_lock_key);
      SELECT id INTO v_id FROM webhook_events
       WHERE source = p_source AND signed_sha256 = p_signed_sha256
         AND received_at > now() - make_interval(secs => v_window)
       ORDER BY seq LIMIT 1;
      IF v_id IS NOT NULL THEN
        RETURN json_build_object('id', v_id, 'duplicate', true, 'forward', false);
      END IF;
    END IF;
  END IF;
  IF cardinality(p_earlier_ids) > 0 THEN
    SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = ANY (p_earlier_ids) ORDER BY seq LIMIT 1;
    IF v_id IS NOT NULL THEN
      RETURN json_build_object('id', v_id, 'duplicate', true, 'forward', false);
    END IF;
  END IF;
  IF p_lock_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(p_lock_key);
  END IF;
  INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, event_type, payload, ordering_value, signed_sha256,
                              delivery_state, next_attempt_at)
  SELECT s.source, p_webhook_id, to_timestamp(p_timestamp), p_event_type, p_payload::json, p_ordering_value, p_signed_sha256,
         CASE WHEN s.forward IS NOT NULL THEN 'pending' END, CASE WHEN s.forward IS NOT NULL THEN now() END
    FROM webhook_sources s WHERE s.source = p_source
  ON CONFLICT (source, webhook_id) DO NOTHING
  RETURNING id, delivery_state IS NOT NULL INTO v_id, v_forward;
  IF v_id IS NOT NULL THEN
    RETURN json_build_object('id', v_id, 'duplicate', false, 'forward', v_forward);
  END IF;
  SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = p_webhook_id;
  RETURN json_build_object('id', v_id, 'duplicate', true, 'forward', false);  -- id NULL: the source was deleted meanwhile
END
$$;
COMMENT ON FUNCTION admit_webhook_receive(text, text, bigint, text, text, text, bigint, integer, text[], text, bigint) IS 'Stores a verified delivery once (pending forwarding when its source forwards): a repeat of its webhook id, of an earlier id, or of its signed bytes within the replay window changes nothing and answers the stored event.';

-- Pull consumers claim only events nobody forwards.
CREATE OR REPLACE FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer) RETURNS json
LANGUAGE sql AS $$
  WITH picked AS (
    SELECT e.id, e.seq, octet_length(e.payload::text) AS size FROM webhook_events e
     WHERE e.source = p_source AND e.processed_at IS NULL AND e.delivery_state IS NULL
       AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= clock_timestamp())
       AND (e.ordering_value IS NULL OR NOT EXISTS (
             SELECT 1 FROM webhook_events o
              WHERE o.source = e.source AND o.ordering_value = e.ordering_value AND o.id <> e.id
                AND o.processed_at IS NULL AND o.delivery_state IS NULL
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
           (SELECT json_agg(json_build_object('id', c.id, 'webhook_id', c.webhook_id, 'event_type', c.event_type,
                                              'payload', c.payload,
                                              'ordering_value', c.ordering_value,
                                              'received_at', admit_rfc3339(c.received_at),
                                              'claim_expires_at', admit_rfc3339(c.claim_expires_at),
                                              'receipt', c.claim_receipt)
                            ORDER BY c.seq) FROM claimed c), '[]'::json)) END
$$;
COMMENT ON FUNCTION admit_webhook_claim(text, integer, integer, integer) IS 'Claims waiting events for a consumer (SKIP LOCKED), oldest first, respecting ordering values; each claim has a receipt and visibility timeout. Events of a forwarding source are delivered, not claimed.';

-- status=failed lists the dead letters.
CREATE OR REPLACE FUNCTION admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer, p_max_bytes integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE admit_page(array_agg(json_build_object('seq', e.seq, 'event', admit_webhook_event_json(e)) ORDER BY e.seq), p_limit, p_max_bytes) END
    FROM (SELECT * FROM webhook_events
           WHERE source = p_source AND seq > coalesce(p_after, 0)
             AND CASE p_status
                   WHEN 'processed' THEN processed_at IS NOT NULL
                   WHEN 'claimed' THEN processed_at IS NULL AND claim_expires_at > now()
                   WHEN 'received' THEN processed_at IS NULL AND (claim_expires_at IS NULL OR claim_expires_at <= now())
                   WHEN 'pending' THEN delivery_state = 'pending'
                   WHEN 'failed' THEN delivery_state = 'failed'
                   ELSE true END
           ORDER BY seq LIMIT p_limit + 1) e
$$;
COMMENT ON FUNCTION admit_webhook_list(text, text, bigint, integer, integer) IS 'A source''s events by id after a cursor, optionally by status (pull: received, claimed, processed; forwarding: pending, failed), one bounded page.';

-- Claims due attempts: of one event (p_event), of one source, or of any. Returns what the sender
-- needs: the raw payload, the target, its secrets, the attempt's lease and the database clock.
CREATE FUNCTION admit_webhook_forward_claim(p_source text, p_event uuid, p_limit integer, p_trigger text) RETURNS json
LANGUAGE sql AS $$
  WITH picked AS (
    SELECT e.id FROM webhook_events e JOIN webhook_sources s ON s.source = e.source
     WHERE e.delivery_state = 'pending'
       AND (p_source IS NULL OR e.source = p_source)
       AND (p_event IS NULL OR e.id = p_event)
       AND e.next_attempt_at <= clock_timestamp()
       AND (e.in_flight_until IS NULL OR e.in_flight_until <= clock_timestamp())
       AND s.forward IS NOT NULL AND s.forward_stopped_at IS NULL
       AND (e.ordering_value IS NULL OR NOT coalesce((s.forward->>'ordered')::boolean, false) OR NOT EXISTS (
             SELECT 1 FROM webhook_events o
              WHERE o.source = e.source AND o.ordering_value = e.ordering_value
                AND o.delivery_state = 'pending' AND o.seq < e.seq))
     ORDER BY e.next_attempt_at, e.seq
     LIMIT p_limit
     FOR UPDATE OF e SKIP LOCKED
  ), lost AS (
    UPDATE webhook_attempts a SET outcome = 'lost', finished_at = clock_timestamp(),
                                  error = 'The attempt''s lease lapsed without an outcome (its sender stopped); another attempt was made.'
      FROM picked WHERE a.event_id = picked.id AND a.outcome IS NULL
  ), claimed AS (
    UPDATE webhook_events e
       SET delivery_attempts = e.delivery_attempts + 1,
           attempt_lease = gen_random_uuid(),
           in_flight_until = clock_timestamp() + make_interval(secs => ((s.forward->>'timeout_ms')::integer + 30000) / 1000.0)
      FROM picked, webhook_sources s
     WHERE e.id = picked.id AND s.source = e.source
    RETURNING e.id, e.seq, e.source, e.webhook_id, e.event_type, e.payload, e.ordering_value, e.delivery_attempts, e.attempt_lease,
              s.forward, s.forward_secret,
              CASE WHEN s.forward_previous_secret_expires_at > now() THEN s.forward_previous_secret END AS previous_secret
  ), logged AS (
    INSERT INTO webhook_attempts (event_id, n, source, lease, trigger, target)
    SELECT c.id, c.delivery_attempts, c.source, c.attempt_lease, p_trigger,
           coalesce(c.forward->>'url', 'binding:' || (c.forward->>'binding') || coalesce(c.forward->>'path', '/'))
      FROM claimed c
  )
  SELECT coalesce(json_agg(json_build_object(
           'id', c.id, 'source', c.source, 'webhook_id', c.webhook_id, 'event_type', c.event_type,
           'payload', c.payload::text, 'ordering_value', c.ordering_value,
           'attempt', c.delivery_attempts, 'lease', c.attempt_lease, 'forward', c.forward,
           'secrets', CASE WHEN c.previous_secret IS NULL THEN json_build_array(c.forward_secret)
                           ELSE json_build_array(c.forward_secret, c.previous_secret) END,
           'now_s', floor(extract(epoch FROM now()))::bigint) ORDER BY c.seq), '[]'::json)
    FROM claimed c
$$;
COMMENT ON FUNCTION admit_webhook_forward_claim(text, uuid, integer, text) IS 'Claims due forwarding attempts (SKIP LOCKED; an event in flight or, with ordered, behind an earlier pending event of its value is never taken): stamps a lease, records the attempt, marks a lapsed one lost, and returns what to send.';

-- Records an attempt's outcome. Only the event's current lease moves the event on: a late sender
-- whose lease lapsed records its attempt and changes nothing else.
CREATE FUNCTION admit_webhook_forward_record(p_event uuid, p_lease uuid, p_status integer, p_outcome text, p_latency_ms integer,
                                             p_response text, p_error text, p_retry_after_ms bigint) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  e webhook_events;
  v_schedule jsonb;
  v_delay_ms double precision;
BEGIN
  SELECT * INTO e FROM webhook_events WHERE id = p_event FOR UPDATE;
  IF NOT FOUND THEN RETURN json_build_object('recorded', false, 'state', NULL); END IF;
  UPDATE webhook_attempts SET finished_at = clock_timestamp(), status = p_status, outcome = p_outcome, latency_ms = p_latency_ms,
                              response = p_response, error = p_error, retry_after_ms = p_retry_after_ms
   WHERE event_id = p_event AND lease = p_lease AND outcome IS NULL;
  IF e.attempt_lease IS DISTINCT FROM p_lease OR e.delivery_state IS DISTINCT FROM 'pending' THEN
    RETURN json_build_object('recorded', false, 'state', e.delivery_state);
  END IF;
  IF p_outcome = 'delivered' THEN
    UPDATE webhook_events SET delivery_state = 'delivered', delivered_at = now(), processed_at = coalesce(processed_at, now()),
                              in_flight_until = NULL, attempt_lease = NULL, next_attempt_at = NULL
     WHERE id = p_event RETURNING * INTO e;
  ELSIF p_outcome = 'gone' THEN
    UPDATE webhook_sources SET forward_stopped_at = now(),
                               forward_stopped_reason = 'The target answered 410 Gone; nothing is forwarded until the source is PUT again.'
     WHERE source = e.source AND forward IS NOT NULL AND forward_stopped_at IS NULL;
    UPDATE webhook_events SET in_flight_until = NULL, attempt_lease = NULL, next_attempt_at = now()
     WHERE id = p_event RETURNING * INTO e;
  ELSE
    SELECT forward->'retry_schedule_ms' INTO v_schedule FROM webhook_sources WHERE source = e.source;
    IF v_schedule IS NULL OR e.delivery_step >= jsonb_array_length(v_schedule) THEN
      UPDATE webhook_events SET delivery_state = 'failed', failed_at = now(), in_flight_until = NULL, attempt_lease = NULL,
                                next_attempt_at = NULL
       WHERE id = p_event RETURNING * INTO e;
    ELSE
      -- The schedule's delay with up to 20 % added at random (so retries of many events spread out),
      -- or the target's Retry-After when that is longer; never beyond 7 days.
      v_delay_ms := least(greatest((v_schedule->>e.delivery_step)::bigint * (1 + random() * 0.2), coalesce(p_retry_after_ms, 0)),
                          7 * 86400000);
      UPDATE webhook_events SET delivery_step = delivery_step + 1, in_flight_until = NULL, attempt_lease = NULL,
                                next_attempt_at = clock_timestamp() + make_interval(secs => v_delay_ms / 1000.0)
       WHERE id = p_event RETURNING * INTO e;
    END IF;
  END IF;
  RETURN json_build_object('recorded', true, 'state', e.delivery_state, 'next_attempt_at', admit_rfc3339(e.next_attempt_at));
END
$$;
COMMENT ON FUNCTION admit_webhook_forward_record(uuid, uuid, integer, text, integer, text, text, bigint) IS 'Records a forwarding attempt''s outcome; with the event''s live lease: delivered, the next attempt scheduled (backoff with jitter, Retry-After honoured), failed when the schedule is spent, or the source stopped on 410.';

-- When the next attempt of any source is due, for a cron run deciding how long to wait.
CREATE FUNCTION admit_webhook_forward_next_due() RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('in_ms', greatest(0, floor(extract(epoch FROM (min(greatest(e.next_attempt_at, coalesce(e.in_flight_until, e.next_attempt_at))) - clock_timestamp())) * 1000))::bigint)
    FROM webhook_events e JOIN webhook_sources s ON s.source = e.source
   WHERE e.delivery_state = 'pending' AND s.forward IS NOT NULL AND s.forward_stopped_at IS NULL
$$;
COMMENT ON FUNCTION admit_webhook_forward_next_due() IS 'How many ms until the soonest pending forwarding attempt is due (in_ms null: none pending).';

-- Makes one event of a forwarding source due again now, from the start of its schedule.
CREATE FUNCTION admit_webhook_forward_redeliver(p_source text, p_event uuid) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  e webhook_events;
  s webhook_sources;
BEGIN
  SELECT * INTO s FROM webhook_sources WHERE source = p_source;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT * INTO e FROM webhook_events WHERE id = p_event AND source = p_source FOR UPDATE;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF s.forward IS NULL THEN RETURN json_build_object('redelivered', false, 'why', 'not-forwarding'); END IF;
  IF e.in_flight_until > clock_timestamp() THEN
    RETURN json_build_object('redelivered', false, 'why', 'in-flight', 'in_flight_until', admit_rfc3339(e.in_flight_until));
  END IF;
  IF e.delivery_state IS NULL AND e.claim_expires_at > clock_timestamp() THEN
    RETURN json_build_object('redelivered', false, 'why', 'claimed');
  END IF;
  UPDATE webhook_events SET delivery_state = 'pending', delivery_step = 0, next_attempt_at = now(), failed_at = NULL,
                            in_flight_until = NULL, attempt_lease = NULL
   WHERE id = p_event RETURNING * INTO e;
  RETURN json_build_object('redelivered', true, 'event', admit_webhook_event_json(e));
END
$$;
COMMENT ON FUNCTION admit_webhook_forward_redeliver(text, uuid) IS 'Redelivers one event of a forwarding source (failed, delivered, or never forwarded): pending now, from the start of its retry schedule; refused while an attempt is in flight.';

-- Makes the failed events received in [p_since, p_until) pending again, a bounded batch.
CREATE FUNCTION admit_webhook_forward_redeliver_failed(p_source text, p_since timestamptz, p_until timestamptz, p_limit integer) RETURNS json
LANGUAGE sql AS $$
  WITH picked AS (
    SELECT e.id FROM webhook_events e
     WHERE e.source = p_source AND e.delivery_state = 'failed'
       AND e.received_at >= p_since AND e.received_at < p_until
       AND EXISTS (SELECT 1 FROM webhook_sources s WHERE s.source = p_source AND s.forward IS NOT NULL)
     ORDER BY e.received_at, e.seq
     LIMIT p_limit + 1
     FOR UPDATE OF e SKIP LOCKED
  ), batch AS (
    SELECT id FROM picked LIMIT p_limit
  ), done AS (
    UPDATE webhook_events e SET delivery_state = 'pending', delivery_step = 0, next_attempt_at = now(), failed_at = NULL
      FROM batch WHERE e.id = batch.id
    RETURNING 1
  )
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE json_build_object('redelivered', (SELECT count(*) FROM done), 'more', (SELECT count(*) FROM picked) > p_limit,
                                'forwarding', EXISTS (SELECT 1 FROM webhook_sources s WHERE s.source = p_source AND s.forward IS NOT NULL)) END
$$;
COMMENT ON FUNCTION admit_webhook_forward_redeliver_failed(text, timestamptz, timestamptz, integer) IS 'Bulk redelivery: the failed events of a forwarding source received in [since, until), at most p_limit, pending again from the start of their schedule.';

-- An event's attempts, oldest first, one page after attempt p_after.
CREATE FUNCTION admit_webhook_forward_attempts(p_source text, p_event uuid, p_after integer, p_limit integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_events WHERE id = p_event AND source = p_source) THEN NULL
         ELSE json_build_object(
           'items', coalesce((SELECT json_agg(json_build_object(
                      'n', a.n, 'trigger', a.trigger, 'target', a.target,
                      'started_at', admit_rfc3339(a.started_at), 'finished_at', admit_rfc3339(a.finished_at),
                      'status', a.status, 'outcome', a.outcome, 'latency_ms', a.latency_ms,
                      'response', a.response, 'error', a.error, 'retry_after_ms', a.retry_after_ms) ORDER BY a.n)
                      FROM (SELECT * FROM webhook_attempts WHERE event_id = p_event AND n > coalesce(p_after, 0)
                             ORDER BY n LIMIT p_limit) a), '[]'::json),
           'more', EXISTS (SELECT 1 FROM webhook_attempts WHERE event_id = p_event AND n > coalesce(p_after, 0) + p_limit)) END
$$;
COMMENT ON FUNCTION admit_webhook_forward_attempts(text, uuid, integer, integer) IS 'One page of an event''s forwarding attempts, oldest first: when, the status, latency, outcome and the first bytes of the answer; NULL: no such event.';

-- Per forwarding source: events pending, in flight and failed, and whether a 410 stopped it.
CREATE FUNCTION admit_webhook_forward_gauges() RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
      'source', s.source,
      'pending', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.delivery_state = 'pending'),
      'in_flight', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.delivery_state = 'pending'
                      AND e.in_flight_until > now()),
      'failed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.delivery_state = 'failed'),
      'stopped', s.forward_stopped_at IS NOT NULL,
      'oldest_pending_s', (SELECT coalesce(extract(epoch FROM now() - min(e.received_at)), 0) FROM webhook_events e
                             WHERE e.source = s.source AND e.delivery_state = 'pending')
    ) ORDER BY s.source), '[]'::json)
    FROM webhook_sources s
   WHERE s.forward IS NOT NULL OR EXISTS (SELECT 1 FROM webhook_events e WHERE e.source = s.source AND e.delivery_state IN ('pending', 'failed'))
$$;
COMMENT ON FUNCTION admit_webhook_forward_gauges() IS 'The forwarding gauges a scrape reads, per source that forwards or has events pending or failed: pending, in flight, failed (the dead letters), stopped by a 410.';

CREATE FUNCTION admit_sweep_webhook_forward_secrets() RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (
    UPDATE webhook_sources SET forward_previous_secret = NULL, forward_previous_secret_expires_at = NULL
     WHERE source IN (SELECT source FROM webhook_sources WHERE forward_previous_secret_expires_at <= now()
                       ORDER BY source LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
COMMENT ON FUNCTION admit_sweep_webhook_forward_secrets() IS 'Sweeper: clears previous forward secrets past their overlap.';
