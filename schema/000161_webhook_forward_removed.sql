-- A source whose `forward` is removed is a pull source again, for its undelivered events too: the
-- PUT that removes it hands its pending and failed events back to pull consumers (delivery_state
-- NULL, claimable), in the same statement. Delivered events stay processed. An attempt in flight
-- then finds its event no longer pending and records only itself.
CREATE OR REPLACE FUNCTION admit_webhook_put_source(p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint, p_tolerance_s integer,
                                                    p_ordering_key text, p_hmac jsonb, p_replay_window_s integer,
                                                    p_forward jsonb, p_forward_secret text, p_forward_previous_secret_ttl_ms bigint) RETURNS json
LANGUAGE sql AS $$
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
$$;
COMMENT ON FUNCTION admit_webhook_put_source(text, text, text, bigint, integer, text, jsonb, integer, jsonb, text, bigint) IS 'Creates or updates a source, its replay window and where its events are forwarded; a new secret (sending or forward) keeps the previous one valid for its overlap; putting it again resumes forwarding a 410 stopped; removing forward hands undelivered events back to pull consumers.';
