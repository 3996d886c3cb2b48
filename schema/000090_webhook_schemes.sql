-- Webhook sources with the senders' own signature schemes (issue 31), two secrets during a rotation,
-- and the sender's event type on every event.
--
-- * A source has a `scheme`: standard-webhooks (000041's, the default), stripe, github, shopify, slack,
--   or hmac (generic: its settings in `hmac`). The Worker verifies the delivery with the scheme's own
--   verifier (functions/webhooks/schemes/); the inbox, dedupe and claim/ack stay one path.
-- * Schemes without a signed timestamp (github, shopify, hmac without a timestamp header) keep
--   tolerance_s NULL, and their events' webhook_timestamp is NULL.
-- * Rotation: a source may hold its previous secret until previous_secret_expires_at (at most 30
--   days), set by admit_webhook_put_source's p_previous_secret_ttl_ms: a delivery verifying with either
--   is taken. The cron sweep clears a lapsed previous secret (admit_sweep_webhook_secrets).
-- * webhook_events.event_type: what consumers route on (Stripe `type`, X-GitHub-Event,
--   X-Shopify-Topic, Slack event.type, Standard Webhooks' payload `type`, or the hmac source's
--   configured place); the event's webhook_id is the sender's own id.

ALTER TABLE webhook_sources
  ADD COLUMN scheme text NOT NULL DEFAULT 'standard-webhooks',
  ADD COLUMN hmac jsonb,
  ADD COLUMN previous_secret text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ALTER COLUMN tolerance_s DROP NOT NULL,
  ADD CONSTRAINT webhook_sources_scheme CHECK (scheme IN ('standard-webhooks', 'stripe', 'github', 'shopify', 'slack', 'hmac')),
  ADD CONSTRAINT webhook_sources_hmac CHECK ((scheme = 'hmac') = (hmac IS NOT NULL)),
  ADD CONSTRAINT webhook_sources_previous CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));

ALTER TABLE webhook_events
  ADD COLUMN event_type text,
  ALTER COLUMN webhook_timestamp DROP NOT NULL;

-- The public view of a source: never a secret; when a previous secret is still accepted, until when.
CREATE OR REPLACE FUNCTION admit_webhook_source_json(s webhook_sources) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('source', s.source, 'scheme', s.scheme, 'tolerance_s', s.tolerance_s, 'ordering_key', s.ordering_key,
                           'hmac', s.hmac,
                           'previous_secret_expires_at',
                             CASE WHEN s.previous_secret_expires_at > now() THEN admit_rfc3339(s.previous_secret_expires_at) END,
                           'created_at', admit_rfc3339(s.created_at), 'updated_at', admit_rfc3339(s.updated_at))
$$;

-- Registers or replaces a sender, in one statement (the audit of config writes joins this call).
-- p_previous_secret_ttl_ms is how much longer, from now, the previous secret is accepted:
--   * with a new secret: the stored one becomes the previous secret for that long; NULL or 0 drops it
--     (the new secret alone verifies from now on);
--   * with the same secret: the previous secret (if any, and still live) gets that long from now; 0
--     retires it; NULL leaves it as it is.
-- Changing the scheme drops any previous secret. Returns {created, source: {...}}.
DROP FUNCTION admit_webhook_put_source(text, text, integer, text);
CREATE FUNCTION admit_webhook_put_source(
  p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint,
  p_tolerance_s integer, p_ordering_key text, p_hmac jsonb
) RETURNS json
LANGUAGE sql AS $$
  INSERT INTO webhook_sources AS s (source, scheme, secret, tolerance_s, ordering_key, hmac)
  VALUES (p_source, p_scheme, p_secret, p_tolerance_s, p_ordering_key, p_hmac)
  ON CONFLICT (source) DO UPDATE
     SET scheme = excluded.scheme, secret = excluded.secret, tolerance_s = excluded.tolerance_s,
         ordering_key = excluded.ordering_key, hmac = excluded.hmac, updated_at = now(),
         previous_secret = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN CASE WHEN p_previous_secret_ttl_ms IS NOT NULL THEN s.secret END
           WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END,
         previous_secret_expires_at = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0)
           WHEN s.previous_secret_expires_at > now() THEN
             coalesce(now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0), s.previous_secret_expires_at) END
  RETURNING json_build_object('created', s.xmax = 0, 'source', admit_webhook_source_json(s))
$$;

-- What the receiver needs to verify a delivery: the scheme and its settings, the secrets a signature
-- may be made with (the current one first; the previous one while it is live), and the database
-- clock (ms since the epoch) that a signed timestamp is judged by. NULL for an unknown source.
DROP FUNCTION admit_webhook_source_for_delivery(text, bigint);
CREATE FUNCTION admit_webhook_source_for_delivery(p_source text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
           'scheme', s.scheme,
           'secrets', CASE WHEN s.previous_secret_expires_at > now() THEN json_build_array(s.secret, s.previous_secret)
                           ELSE json_build_array(s.secret) END,
           'tolerance_s', s.tolerance_s,
           'ordering_key', s.ordering_key,
           'hmac', s.hmac,
           'now_ms', floor(extract(epoch FROM now()) * 1000)::bigint)
    FROM webhook_sources s WHERE s.source = p_source
$$;

-- Stores a verified delivery once per (source, webhook_id) — the sender's own id. Returns {id,
-- duplicate}. p_timestamp (unix seconds) is NULL for a scheme that signs none. As 000041's, with the
-- event type.
DROP FUNCTION admit_webhook_receive(text, text, bigint, text, text, bigint, integer);
CREATE FUNCTION admit_webhook_receive(
  p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text,
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
  INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, event_type, payload, ordering_value)
  SELECT s.source, p_webhook_id, to_timestamp(p_timestamp), p_event_type, p_payload::json, p_ordering_value
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
    'processed_at', admit_rfc3339(e.processed_at))
$$;

-- 000060's claim, each event carrying its event type.
CREATE OR REPLACE FUNCTION admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer) RETURNS json
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
           (SELECT json_agg(json_build_object('id', c.id, 'webhook_id', c.webhook_id, 'event_type', c.event_type,
                                              'payload', c.payload,
                                              'ordering_value', c.ordering_value,
                                              'received_at', admit_rfc3339(c.received_at),
                                              'claim_expires_at', admit_rfc3339(c.claim_expires_at),
                                              'receipt', c.claim_receipt)
                            ORDER BY c.seq) FROM claimed c), '[]'::json)) END
$$;

-- A previous secret past its expiry is no longer accepted (admit_webhook_source_for_delivery) and
-- is not kept either: cleared in batches of 1000.
CREATE FUNCTION admit_sweep_webhook_secrets() RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (
    UPDATE webhook_sources SET previous_secret = NULL, previous_secret_expires_at = NULL
     WHERE source IN (SELECT source FROM webhook_sources WHERE previous_secret_expires_at <= now()
                       ORDER BY source LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
