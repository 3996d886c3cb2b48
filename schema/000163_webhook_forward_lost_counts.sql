-- A lost attempt (its lease lapsed: the sender stopped before recording an outcome) counts as a
-- failed one: the claim that finds it advances the event's place in the retry schedule, and an event
-- whose schedule is spent is failed there instead of being claimed again. Without this, a target
-- whose answer kept stopping its sender (or a sender that kept dying) was retried forever at the
-- lease's pace, never reaching the dead letter.
CREATE OR REPLACE FUNCTION admit_webhook_forward_claim(p_source text, p_event uuid, p_limit integer, p_trigger text) RETURNS json
LANGUAGE sql AS $$
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
$$;
COMMENT ON FUNCTION admit_webhook_forward_claim(text, uuid, integer, text) IS 'Claims due forwarding attempts (SKIP LOCKED; an event in flight or, with ordered, behind an earlier pending event of its value is never taken): stamps a lease, records the attempt, marks a lapsed one lost (a failed attempt: an event whose schedule it spends is failed), and returns what to send.';
