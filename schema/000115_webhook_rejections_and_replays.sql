-- Webhook deliveries: why one was refused goes to the source's owner, not to the sender; replays of
-- schemes whose id is not signed can be recognised by their signed bytes; Shopify's event id.
--
-- * The delivery route answers every refusal before verification with one and the same 401 (an
--   unknown source included), so a sender learns nothing of which sources exist or how they are set
--   up. The reason (missing or malformed header, signature mismatch, timestamp outside the tolerance)
--   is kept on the source, the latest 10, newest first, in `recent_rejections`, which the source's
--   authenticated GET (and its list, and its PUT answer) show. admit_webhook_reject() records one; it
--   never waits: while another rejection of the same source is being recorded, or the source is being
--   replaced, it records nothing (the answer to the sender is the same either way).
-- * replay_window_s (github, shopify, and hmac sources whose id is outside the signed bytes): a
--   verified delivery whose signed bytes (their SHA-256, `signed_sha256`) equal those of an event of
--   the source received within the last replay_window_s seconds is that event again, whatever id it
--   carries. Deliveries with the same signed bytes are serialised on an advisory lock of their own
--   (p_signed_lock_key), taken before the ordering lock, so two copies of one replay cannot both pass.
-- * p_earlier_ids: other ids the same delivery was stored under by earlier versions (Shopify's
--   X-Shopify-Webhook-Id, before deliveries were keyed on X-Shopify-Event-Id): an event stored under
--   one of them is this delivery again.

ALTER TABLE webhook_sources
  ADD COLUMN recent_rejections jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN replay_window_s integer,
  ADD CONSTRAINT webhook_sources_replay_window CHECK (replay_window_s BETWEEN 1 AND 604800);

-- hmac settings gain allow_unsigned_id (PUT refuses an id outside the signed bytes without it). A
-- source registered before keeps working as it was: true exactly where its id is a header that its
-- `signed` template does not sign, so its GET shows that a replay with a fresh id is stored again.
UPDATE webhook_sources
   SET hmac = hmac || jsonb_build_object('allow_unsigned_id', hmac->'id' ? 'header' AND strpos(hmac->>'signed', '{id}') = 0)
 WHERE scheme = 'hmac' AND NOT hmac ? 'allow_unsigned_id';

ALTER TABLE webhook_events ADD COLUMN signed_sha256 text;

CREATE INDEX webhook_events_signed ON webhook_events (source, signed_sha256, received_at) WHERE signed_sha256 IS NOT NULL;

-- The public view of a source: never a secret; its replay window and its latest rejections.
CREATE OR REPLACE FUNCTION admit_webhook_source_json(s webhook_sources) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('source', s.source, 'scheme', s.scheme, 'tolerance_s', s.tolerance_s, 'ordering_key', s.ordering_key,
                           'hmac', s.hmac, 'replay_window_s', s.replay_window_s,
                           'previous_secret_expires_at',
                             CASE WHEN s.previous_secret_expires_at > now() THEN admit_rfc3339(s.previous_secret_expires_at) END,
                           'recent_rejections', s.recent_rejections,
                           'created_at', admit_rfc3339(s.created_at), 'updated_at', admit_rfc3339(s.updated_at))
$$;

-- 000090's, with p_replay_window_s (NULL: none). Rejections recorded so far are kept.
DROP FUNCTION admit_webhook_put_source(text, text, text, bigint, integer, text, jsonb);
CREATE FUNCTION admit_webhook_put_source(
  p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint,
  p_tolerance_s integer, p_ordering_key text, p_hmac jsonb, p_replay_window_s integer
) RETURNS json
LANGUAGE sql AS $$
  INSERT INTO webhook_sources AS s (source, scheme, secret, tolerance_s, ordering_key, hmac, replay_window_s)
  VALUES (p_source, p_scheme, p_secret, p_tolerance_s, p_ordering_key, p_hmac, p_replay_window_s)
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
             coalesce(now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0), s.previous_secret_expires_at) END
  RETURNING json_build_object('created', s.xmax = 0, 'source', admit_webhook_source_json(s))
$$;

-- 000090's, with the replay window.
CREATE OR REPLACE FUNCTION admit_webhook_source_for_delivery(p_source text) RETURNS json
LANGUAGE sql STABLE AS $$
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
$$;

-- Records why a delivery to p_source was refused ({reason, header?, detail}, stamped `at` here) as the
-- newest of the source's latest 10 rejections. The same statement for any name: an unknown source
-- updates nothing (nor does a rejection for being unknown, should the source be created meanwhile).
-- Never waits: a source row another statement holds is skipped.
CREATE FUNCTION admit_webhook_reject(p_source text, p_rejection jsonb) RETURNS void
LANGUAGE sql AS $$
  UPDATE webhook_sources s
     SET recent_rejections = (
           SELECT coalesce(jsonb_agg(r.value ORDER BY r.n), '[]'::jsonb)
             FROM jsonb_array_elements(jsonb_build_array(jsonb_build_object('at', admit_rfc3339(now())) || p_rejection)
                                       || s.recent_rejections) WITH ORDINALITY AS r(value, n)
            WHERE r.n <= 10)
   WHERE s.source = (SELECT l.source FROM webhook_sources l WHERE l.source = p_source FOR NO KEY UPDATE SKIP LOCKED)
     AND p_rejection->>'reason' <> 'unknown-source'
$$;

-- Stores a verified delivery once per (source, webhook_id). Returns {id, duplicate}. As 000090's, and:
-- p_earlier_ids: an event of the source stored under one of them is this delivery again;
-- p_signed_sha256: the SHA-256 of the signed bytes, kept on the event (NULL: the scheme signs the id);
-- with the source's replay_window_s, an event with the same signed bytes received within it is this
-- delivery again, checked under the advisory lock p_signed_lock_key.
DROP FUNCTION admit_webhook_receive(text, text, bigint, text, text, text, bigint, integer);
CREATE FUNCTION admit_webhook_receive(
  p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text,
  p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer,
  p_earlier_ids text[], p_signed_sha256 text, p_signed_lock_key bigint
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid;
  v_window integer;
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
        RETURN json_build_object('id', v_id, 'duplicate', true);
      END IF;
    END IF;
  END IF;
  IF cardinality(p_earlier_ids) > 0 THEN
    SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = ANY (p_earlier_ids) ORDER BY seq LIMIT 1;
    IF v_id IS NOT NULL THEN
      RETURN json_build_object('id', v_id, 'duplicate', true);
    END IF;
  END IF;
  IF p_lock_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(p_lock_key);
  END IF;
  INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, event_type, payload, ordering_value, signed_sha256)
  SELECT s.source, p_webhook_id, to_timestamp(p_timestamp), p_event_type, p_payload::json, p_ordering_value, p_signed_sha256
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

-- What the re-created and new functions decide (in a database where a later migration's COMMENT ON
-- came first, a DROP above took it away).
COMMENT ON FUNCTION admit_webhook_put_source IS 'Creates or updates a source; a new secret keeps the previous one valid for its overlap; its replay window; its recorded rejections are kept.';
COMMENT ON FUNCTION admit_webhook_receive IS 'Stores a verified delivery once: a repeat of its webhook id, of an earlier id, or of its signed bytes within the replay window changes nothing and answers the stored event.';
COMMENT ON FUNCTION admit_webhook_reject IS 'Records why a delivery was refused as the newest of its source''s latest 10 rejections, for the owner; never waits, and an unknown source records nothing.';
