-- GENERATED FILE: DO NOT EDIT.
--
-- The webhooks part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE webhook_attempts (
  event_id uuid NOT NULL,
  n integer NOT NULL,
  source text NOT NULL,
  lease uuid NOT NULL,
  trigger text NOT NULL,
  target text NOT NULL,
  started_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
  finished_at timestamp with time zone,
  status integer,
  outcome text,
  latency_ms integer,
  response text,
  error text,
  retry_after_ms bigint,
  CONSTRAINT webhook_attempts_pkey PRIMARY KEY (event_id, n),
  CONSTRAINT webhook_attempts_lease_key UNIQUE (lease),
  CONSTRAINT webhook_attempts_event_id_fkey FOREIGN KEY (event_id) REFERENCES webhook_events(id) ON DELETE CASCADE,
  CONSTRAINT webhook_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['delivered'::text, 'failed'::text, 'timeout'::text, 'error'::text, 'gone'::text, 'lost'::text]))),
  CONSTRAINT webhook_attempts_trigger_check CHECK ((trigger = ANY (ARRAY['received'::text, 'schedule'::text, 'redeliver'::text])))
);
COMMENT ON TABLE webhook_attempts IS 'Each attempt to forward an event to its source''s target: claimed once (event, n), sent once, then its outcome (status, latency, the first bytes of the answer); outcome NULL while in flight.';

CREATE TABLE webhook_events (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  source text NOT NULL,
  webhook_id text NOT NULL,
  webhook_timestamp timestamp with time zone,
  payload json NOT NULL,
  ordering_value text,
  received_at timestamp with time zone DEFAULT now() NOT NULL,
  claim_expires_at timestamp with time zone,
  claims integer DEFAULT 0 NOT NULL,
  processed_at timestamp with time zone,
  claim_receipt uuid,
  event_type text,
  signed_sha256 text,
  delivery_state text,
  delivery_attempts integer DEFAULT 0 NOT NULL,
  delivery_step integer DEFAULT 0 NOT NULL,
  next_attempt_at timestamp with time zone,
  in_flight_until timestamp with time zone,
  attempt_lease uuid,
  delivered_at timestamp with time zone,
  failed_at timestamp with time zone,
  CONSTRAINT webhook_events_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_events_once UNIQUE (source, webhook_id),
  CONSTRAINT webhook_events_source_fkey FOREIGN KEY (source) REFERENCES webhook_sources(source) ON DELETE CASCADE,
  CONSTRAINT webhook_events_delivery_state CHECK ((delivery_state = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text]))),
  CONSTRAINT webhook_events_id_length CHECK (((char_length(webhook_id) >= 1) AND (char_length(webhook_id) <= 255)))
);
COMMENT ON TABLE webhook_events IS 'Verified deliveries, each event stored once per source and webhook id, with its claim (receipt, expiry) and processing state.';
CREATE INDEX webhook_events_by_source ON public.webhook_events USING btree (source, seq);
CREATE INDEX webhook_events_forward_due ON public.webhook_events USING btree (next_attempt_at, seq) WHERE (delivery_state = 'pending'::text);
CREATE INDEX webhook_events_forward_failed ON public.webhook_events USING btree (source, received_at) WHERE (delivery_state = 'failed'::text);
CREATE INDEX webhook_events_forward_order ON public.webhook_events USING btree (source, ordering_value, seq) WHERE ((delivery_state = 'pending'::text) AND (ordering_value IS NOT NULL));
CREATE INDEX webhook_events_ordering ON public.webhook_events USING btree (source, ordering_value, seq) WHERE ((processed_at IS NULL) AND (ordering_value IS NOT NULL));
CREATE INDEX webhook_events_pending ON public.webhook_events USING btree (source, seq) WHERE (processed_at IS NULL);
CREATE INDEX webhook_events_processed ON public.webhook_events USING btree (processed_at) WHERE (processed_at IS NOT NULL);
CREATE INDEX webhook_events_signed ON public.webhook_events USING btree (source, signed_sha256, received_at) WHERE (signed_sha256 IS NOT NULL);

CREATE TABLE webhook_sources (
  source text NOT NULL,
  secret text NOT NULL,
  tolerance_s integer DEFAULT 300,
  ordering_key text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  scheme text DEFAULT 'standard-webhooks'::text NOT NULL,
  hmac jsonb,
  previous_secret text,
  previous_secret_expires_at timestamp with time zone,
  recent_rejections jsonb DEFAULT '[]'::jsonb NOT NULL,
  replay_window_s integer,
  forward jsonb,
  forward_secret text,
  forward_previous_secret text,
  forward_previous_secret_expires_at timestamp with time zone,
  forward_stopped_at timestamp with time zone,
  forward_stopped_reason text,
  CONSTRAINT webhook_sources_pkey PRIMARY KEY (source),
  CONSTRAINT webhook_sources_forward CHECK ((((forward IS NULL) = (forward_secret IS NULL)) AND ((forward IS NULL) OR ((forward ? 'url'::text) <> (forward ? 'binding'::text))))),
  CONSTRAINT webhook_sources_forward_previous CHECK (((forward_previous_secret IS NULL) = (forward_previous_secret_expires_at IS NULL))),
  CONSTRAINT webhook_sources_hmac CHECK (((scheme = 'hmac'::text) = (hmac IS NOT NULL))),
  CONSTRAINT webhook_sources_name CHECK (((source ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'::text) AND (source <> 'sources'::text))),
  CONSTRAINT webhook_sources_ordering_key CHECK (((ordering_key IS NULL) OR (ordering_key ~ '^(/([^~/]|~[01])*)+$'::text))),
  CONSTRAINT webhook_sources_previous CHECK (((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))),
  CONSTRAINT webhook_sources_replay_window CHECK (((replay_window_s >= 1) AND (replay_window_s <= 604800))),
  CONSTRAINT webhook_sources_scheme CHECK ((scheme = ANY (ARRAY['standard-webhooks'::text, 'stripe'::text, 'github'::text, 'shopify'::text, 'slack'::text, 'hmac'::text]))),
  CONSTRAINT webhook_sources_tolerance CHECK (((tolerance_s >= 1) AND (tolerance_s <= 86400)))
);
COMMENT ON TABLE webhook_sources IS 'Webhook senders: the signature scheme, secrets (the previous one until it expires), tolerance and ordering key.';

-- Functions

CREATE OR REPLACE FUNCTION public.admit_sweep_webhook_events()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    DELETE FROM webhook_events
     WHERE id IN (SELECT id FROM webhook_events
                   WHERE processed_at IS NOT NULL AND processed_at < now() - interval '7 days'
                   ORDER BY processed_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;
COMMENT ON FUNCTION admit_sweep_webhook_events() IS 'Sweeper: deletes processed events past their retention, a bounded batch; unprocessed events are never swept.';

CREATE OR REPLACE FUNCTION public.admit_sweep_webhook_forward_secrets()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    UPDATE webhook_sources SET forward_previous_secret = NULL, forward_previous_secret_expires_at = NULL
     WHERE source IN (SELECT source FROM webhook_sources WHERE forward_previous_secret_expires_at <= now()
                       ORDER BY source LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;
COMMENT ON FUNCTION admit_sweep_webhook_forward_secrets() IS 'Sweeper: clears previous forward secrets past their overlap.';

CREATE OR REPLACE FUNCTION public.admit_sweep_webhook_secrets()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    UPDATE webhook_sources SET previous_secret = NULL, previous_secret_expires_at = NULL
     WHERE source IN (SELECT source FROM webhook_sources WHERE previous_secret_expires_at <= now()
                       ORDER BY source LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;
COMMENT ON FUNCTION admit_sweep_webhook_secrets() IS 'Sweeper: clears previous secrets past their expiry.';

CREATE OR REPLACE FUNCTION public.admit_webhook_ack(p_source text, p_id uuid, p_receipt uuid)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_ack(p_source text, p_id uuid, p_receipt uuid) IS 'Marks an event processed when the receipt is its live claim''s; otherwise says why not.';

CREATE OR REPLACE FUNCTION public.admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer) IS 'Claims waiting events for a consumer (SKIP LOCKED), oldest first, respecting ordering values; each claim has a receipt and visibility timeout. Events of a forwarding source are delivered, not claimed.';

CREATE OR REPLACE FUNCTION public.admit_webhook_event_json(e webhook_events)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_event_json(e webhook_events) IS 'An event''s public shape, with its forwarding state when its source forwards.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_attempts(p_source text, p_event uuid, p_after integer, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_attempts(p_source text, p_event uuid, p_after integer, p_limit integer) IS 'One page of an event''s forwarding attempts, oldest first: when, the status, latency, outcome and the first bytes of the answer; NULL: no such event.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_claim(p_source text, p_event uuid, p_limit integer, p_trigger text)
 RETURNS json
 LANGUAGE sql
AS $function$
  WITH picked AS (
    SELECT e.id, e.in_flight_until IS NOT NULL AS lapsed,
           e.in_flight_until IS NOT NULL AND e.delivery_step >= coalesce(jsonb_array_length(s.forward->'retry_schedule_ms'), 0) AS spent
      FROM webhook_events e JOIN webhook_sources s ON s.source = e.source
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
                                  error = 'The attempt''s lease lapsed without an outcome (its sender stopped); it counts as a failed attempt.'
      FROM picked WHERE a.event_id = picked.id AND a.outcome IS NULL
  ), dead AS (
    UPDATE webhook_events e SET delivery_state = 'failed', failed_at = now(), in_flight_until = NULL, attempt_lease = NULL, next_attempt_at = NULL
      FROM picked WHERE e.id = picked.id AND picked.spent
  ), claimed AS (
    UPDATE webhook_events e
       SET delivery_attempts = e.delivery_attempts + 1,
           delivery_step = e.delivery_step + CASE WHEN picked.lapsed THEN 1 ELSE 0 END,
           attempt_lease = gen_random_uuid(),
           in_flight_until = clock_timestamp() + make_interval(secs => ((s.forward->>'timeout_ms')::integer + 30000) / 1000.0)
      FROM picked, webhook_sources s
     WHERE e.id = picked.id AND NOT picked.spent AND s.source = e.source
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_claim(p_source text, p_event uuid, p_limit integer, p_trigger text) IS 'Claims due forwarding attempts (SKIP LOCKED; an event in flight or, with ordered, behind an earlier pending event of its value is never taken): stamps a lease, records the attempt, marks a lapsed one lost (a failed attempt: an event whose schedule it spends is failed), and returns what to send.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_gauges()
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_gauges() IS 'The forwarding gauges a scrape reads, per source that forwards or has events pending or failed: pending, in flight, failed (the dead letters), stopped by a 410.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_next_due()
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object('in_ms', greatest(0, floor(extract(epoch FROM (min(greatest(e.next_attempt_at, coalesce(e.in_flight_until, e.next_attempt_at))) - clock_timestamp())) * 1000))::bigint)
    FROM webhook_events e JOIN webhook_sources s ON s.source = e.source
   WHERE e.delivery_state = 'pending' AND s.forward IS NOT NULL AND s.forward_stopped_at IS NULL
     AND (e.ordering_value IS NULL OR NOT coalesce((s.forward->>'ordered')::boolean, false) OR NOT EXISTS (
           SELECT 1 FROM webhook_events o
            WHERE o.source = e.source AND o.ordering_value = e.ordering_value
              AND o.delivery_state = 'pending' AND o.seq < e.seq))
$function$;
COMMENT ON FUNCTION admit_webhook_forward_next_due() IS 'How many ms until the soonest pending forwarding attempt that can be claimed is due (in_ms null: none); events an ordered source holds back are left out.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_record(p_event uuid, p_lease uuid, p_status integer, p_outcome text, p_latency_ms integer, p_response text, p_error text, p_retry_after_ms bigint)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_record(p_event uuid, p_lease uuid, p_status integer, p_outcome text, p_latency_ms integer, p_response text, p_error text, p_retry_after_ms bigint) IS 'Records a forwarding attempt''s outcome; with the event''s live lease: delivered, the next attempt scheduled (backoff with jitter, Retry-After honoured), failed when the schedule is spent, or the source stopped on 410.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_redeliver(p_source text, p_event uuid)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_redeliver(p_source text, p_event uuid) IS 'Redelivers one event of a forwarding source (failed, delivered, or never forwarded): pending now, from the start of its retry schedule; refused while an attempt is in flight.';

CREATE OR REPLACE FUNCTION public.admit_webhook_forward_redeliver_failed(p_source text, p_since timestamp with time zone, p_until timestamp with time zone, p_limit integer)
 RETURNS json
 LANGUAGE sql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_forward_redeliver_failed(p_source text, p_since timestamp with time zone, p_until timestamp with time zone, p_limit integer) IS 'Bulk redelivery: the failed events of a forwarding source received in [since, until), at most p_limit, pending again from the start of their schedule.';

CREATE OR REPLACE FUNCTION public.admit_webhook_get_source(p_source text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_webhook_source_json(s) FROM webhook_sources s WHERE s.source = p_source
$function$;
COMMENT ON FUNCTION admit_webhook_get_source(p_source text) IS 'One source''s public view, or NULL.';

CREATE OR REPLACE FUNCTION public.admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer, p_max_bytes integer) IS 'A source''s events by id after a cursor, optionally by status (pull: received, claimed, processed; forwarding: pending, failed), one bounded page.';

CREATE OR REPLACE FUNCTION public.admit_webhook_list_sources(p_after text, p_limit integer, p_names text[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE source > coalesce(p_after, '')
             AND (p_names IS NULL OR source LIKE ANY (p_names))
           ORDER BY source LIMIT p_limit + 1) s
$function$;
COMMENT ON FUNCTION admit_webhook_list_sources(p_after text, p_limit integer, p_names text[]) IS 'Webhook sources by name after a cursor (never their secrets).';

CREATE OR REPLACE FUNCTION public.admit_webhook_put_source(p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint, p_tolerance_s integer, p_ordering_key text, p_hmac jsonb, p_replay_window_s integer, p_forward jsonb, p_forward_secret text, p_forward_previous_secret_ttl_ms bigint)
 RETURNS json
 LANGUAGE sql
AS $function$
  WITH to_pull AS (
    UPDATE webhook_events SET delivery_state = NULL, next_attempt_at = NULL, in_flight_until = NULL, attempt_lease = NULL, failed_at = NULL
     WHERE p_forward IS NULL AND source = p_source AND delivery_state IN ('pending', 'failed')
  )
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
$function$;
COMMENT ON FUNCTION admit_webhook_put_source(p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint, p_tolerance_s integer, p_ordering_key text, p_hmac jsonb, p_replay_window_s integer, p_forward jsonb, p_forward_secret text, p_forward_previous_secret_ttl_ms bigint) IS 'Creates or updates a source, its replay window and where its events are forwarded; a new secret (sending or forward) keeps the previous one valid for its overlap; putting it again resumes forwarding a 410 stopped; removing forward hands undelivered events back to pull consumers.';

CREATE OR REPLACE FUNCTION public.admit_webhook_receive(p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text, p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer, p_earlier_ids text[], p_signed_sha256 text, p_signed_lock_key bigint)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_receive(p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text, p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer, p_earlier_ids text[], p_signed_sha256 text, p_signed_lock_key bigint) IS 'Stores a verified delivery once (pending forwarding when its source forwards): a repeat of its webhook id, of an earlier id, or of its signed bytes within the replay window changes nothing and answers the stored event.';

CREATE OR REPLACE FUNCTION public.admit_webhook_reject(p_source text, p_rejection jsonb)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE webhook_sources s
     SET recent_rejections = (
           SELECT coalesce(jsonb_agg(r.value ORDER BY r.n), '[]'::jsonb)
             FROM jsonb_array_elements(jsonb_build_array(jsonb_build_object('at', admit_rfc3339(now())) || p_rejection)
                                       || s.recent_rejections) WITH ORDINALITY AS r(value, n)
            WHERE r.n <= 10)
   WHERE s.source = (SELECT l.source FROM webhook_sources l WHERE l.source = p_source FOR NO KEY UPDATE SKIP LOCKED)
     AND p_rejection->>'reason' <> 'unknown-source'
$function$;
COMMENT ON FUNCTION admit_webhook_reject(p_source text, p_rejection jsonb) IS 'Records why a delivery was refused as the newest of its source''s latest 10 rejections, for the owner; never waits, and an unknown source records nothing.';

CREATE OR REPLACE FUNCTION public.admit_webhook_source_for_delivery(p_source text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
           'scheme', s.scheme,
           'secrets', CASE WHEN s.previous_secret_expires_at > now() THEN json_build_array(s.secret, s.previous_secret)
                           ELSE json_build_array(s.secret) END,
           'tolerance_s', s.tolerance_s,
           'ordering_key', s.ordering_key,
           'hmac', s.hmac,
           'replay_window_s', s.replay_window_s,
           'now_ms', floor(extract(epoch FROM now()) * 1000)::bigint)
    FROM webhook_sources s WHERE s.source = p_source
$function$;
COMMENT ON FUNCTION admit_webhook_source_for_delivery(p_source text) IS 'What the receiver needs to verify a delivery: the scheme and the secrets accepted now; NULL for an unknown source.';

CREATE OR REPLACE FUNCTION public.admit_webhook_source_json(s webhook_sources)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_webhook_source_json(s webhook_sources) IS 'A source''s public view: never a secret (neither the sending nor the forward secret).';
