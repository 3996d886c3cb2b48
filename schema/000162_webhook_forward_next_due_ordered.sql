-- When the next forwarding attempt is due, leaving out events an ordered source holds back behind an
-- earlier pending event of their value (they come due when it is delivered or failed, not on a
-- clock): a cron run waiting on such a value then sleeps until the earlier event's retry instead of
-- asking every second.
CREATE OR REPLACE FUNCTION admit_webhook_forward_next_due() RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('in_ms', greatest(0, floor(extract(epoch FROM (min(greatest(e.next_attempt_at, coalesce(e.in_flight_until, e.next_attempt_at))) - clock_timestamp())) * 1000))::bigint)
    FROM webhook_events e JOIN webhook_sources s ON s.source = e.source
   WHERE e.delivery_state = 'pending' AND s.forward IS NOT NULL AND s.forward_stopped_at IS NULL
     AND (e.ordering_value IS NULL OR NOT coalesce((s.forward->>'ordered')::boolean, false) OR NOT EXISTS (
           SELECT 1 FROM webhook_events o
            WHERE o.source = e.source AND o.ordering_value = e.ordering_value
              AND o.delivery_state = 'pending' AND o.seq < e.seq))
$$;
COMMENT ON FUNCTION admit_webhook_forward_next_due() IS 'How many ms until the soonest pending forwarding attempt that can be claimed is due (in_ms null: none); events an ordered source holds back are left out.';
