-- GENERATED FILE: DO NOT EDIT.
--
-- The observability part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE metric_minutes (
  name text NOT NULL,
  labels jsonb NOT NULL,
  minute timestamp with time zone NOT NULL,
  value bigint NOT NULL,
  CONSTRAINT metric_minutes_pkey PRIMARY KEY (name, labels, minute)
);
COMMENT ON TABLE metric_minutes IS 'Counts per series per minute for the last day: the dashboard''s "over time"; rolled into metric_totals by the sweeper.';
CREATE INDEX metric_minutes_minute ON public.metric_minutes USING btree (minute);

CREATE TABLE metric_policies (
  name text NOT NULL,
  labelled_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT metric_policies_pkey PRIMARY KEY (name)
);
COMMENT ON TABLE metric_policies IS 'The policies that have a policy label of their own in /metrics (the first METRICS_MAX_POLICIES counted); a policy once here stays, so no counter ever goes down.';

CREATE TABLE metric_totals (
  name text NOT NULL,
  labels jsonb NOT NULL,
  value bigint NOT NULL,
  CONSTRAINT metric_totals_pkey PRIMARY KEY (name, labels)
);
COMMENT ON TABLE metric_totals IS 'Each counter series'' total up to its oldest minute row: what /metrics adds the minute rows to.';

-- Functions

CREATE OR REPLACE FUNCTION public.admit_metric_counters()
 RETURNS TABLE(name text, labels jsonb, value bigint)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT s.name, s.labels, sum(s.value)::bigint
    FROM (SELECT t.name, t.labels, t.value FROM metric_totals t
          UNION ALL
          SELECT m.name, m.labels, m.value FROM metric_minutes m) s
   GROUP BY s.name, s.labels
   ORDER BY s.name, s.labels::text
$function$;
COMMENT ON FUNCTION admit_metric_counters() IS 'Every counter series (total plus minute rows) in one snapshot, for /metrics.';

CREATE OR REPLACE FUNCTION public.admit_metric_gauges()
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'permits_in_use', (SELECT coalesce(json_object_agg(k.kind, k.n), '{}'::json) FROM (
        SELECT kind, count(*) AS n FROM permits
         WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at > now() GROUP BY kind) k),
    'semaphore_permits', (SELECT coalesce(sum(permits), 0) FROM semaphores),
    'webhooks', (SELECT coalesce(json_agg(json_build_object(
        'source', s.source,
        'waiting', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= now())),
        'claimed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claim_expires_at > now()),
        'lapsed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claims > 0 AND e.claim_expires_at <= now()),
        'oldest_waiting_s', (SELECT coalesce(extract(epoch FROM now() - min(e.received_at)), 0) FROM webhook_events e
                      WHERE e.source = s.source AND e.processed_at IS NULL)
      ) ORDER BY s.source), '[]'::json) FROM webhook_sources s),
    'sweep_due', json_build_object(
      'ratelimits', (SELECT count(*) FROM (SELECT 1 FROM ratelimit_counters WHERE expires_at <= now() LIMIT 100000) x)
                  + (SELECT count(*) FROM (SELECT 1 FROM ratelimit_log WHERE expires_at <= now() LIMIT 100000) x),
      'permits', (SELECT count(*) FROM (SELECT 1 FROM permits WHERE released_at IS NULL AND timed_out_at IS NULL
                                         AND expires_at <= now() LIMIT 100000) x),
      'idempotency', (SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE expires_at <= now() LIMIT 100000) x),
      'webhook_events', (SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE processed_at < now() - interval '7 days' LIMIT 100000) x),
      'inventory', (SELECT count(*) FROM (SELECT 1 FROM inventory_tokens WHERE held_until <= now() LIMIT 100000) x)),
    'now', admit_rfc3339(now()))
$function$;
COMMENT ON FUNCTION admit_metric_gauges() IS 'The gauges a scrape reads, computed now on the database clock: permits in use, webhook events waiting, claimed and lapsed, rows due for sweeping.';

CREATE OR REPLACE FUNCTION public.admit_observe_flush(p_hits jsonb, p_counts jsonb, p_max_policies integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(now());
  h record;
  v_ws numeric;
  v_hits bigint := 0;
  v_dropped bigint := 0;
  v_rows integer := 0;
  v_room integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM 1
     FROM ratelimit_policies pol
    WHERE pol.name IN (SELECT x.p FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text))
    ORDER BY pol.name COLLATE "C"
      FOR KEY SHARE;
  FOR h IN
    SELECT x.p, x.k, x.n, x.a, pol.algorithm, pol.window_ms, pol.history_ms,
           CASE WHEN pol.algorithm = 'token_bucket' THEN -1
                WHEN pol.algorithm = 'fixed_window' AND x.w IS NOT NULL THEN x.w / pol.window_ms
                ELSE floor((v_now - coalesce(x.a, 0)) / pol.window_ms)::bigint END AS slot
      FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text, k text, n integer, a bigint, w bigint)
      LEFT JOIN ratelimit_policies pol ON pol.name = x.p
     ORDER BY x.k COLLATE "C", x.p COLLATE "C", 8
  LOOP
    IF h.algorithm IS NULL OR h.n IS NULL OR h.n <= 0 THEN
      v_dropped := v_dropped + coalesce(greatest(h.n, 0), 0);
      CONTINUE;
    END IF;
    IF h.algorithm = 'token_bucket' THEN
      -- The bucket's row counts the aligned window it last saw; a later window restarts its counts
      -- (as a check does). Calls of a window the row has already left are not stored anywhere.
      v_ws := floor((v_now - coalesce(h.a, 0)) / h.window_ms) * h.window_ms;
      UPDATE ratelimit_counters c SET
        consumed = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.consumed ELSE 0 END,
        admitted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.admitted ELSE 0 END,
        attempted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.attempted ELSE 0 END + h.n,
        rejected = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.rejected ELSE 0 END + h.n,
        window_start = admit_ms_to_ts(v_ws)
       WHERE c.policy = h.p AND c.key = h.k AND c.slot = -1 AND c.window_start <= admit_ms_to_ts(v_ws);
      IF FOUND THEN v_hits := v_hits + h.n; ELSE v_dropped := v_dropped + h.n; END IF;
    ELSE
      v_ws := h.slot * h.window_ms;
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
      VALUES (h.p, h.k, h.slot, admit_ms_to_ts(v_ws), 0, 0, h.n, h.n, false,
              admit_ms_to_ts(v_ws + h.window_ms + greatest(h.window_ms, h.history_ms)))
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        attempted = c.attempted + h.n,
        rejected = c.rejected + h.n;
      v_hits := v_hits + h.n;
    END IF;
  END LOOP;

  IF jsonb_array_length(coalesce(p_counts, '[]')) > 0 THEN
    -- New policy labels while there is room (a few over the cap when two flushes meet: said in the docs).
    v_room := greatest(0, p_max_policies - (SELECT count(*) FROM metric_policies)::integer);
    IF v_room > 0 THEN
      INSERT INTO metric_policies (name)
      SELECT DISTINCT x.l->>'policy'
        FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
       WHERE x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
       ORDER BY 1 LIMIT v_room
      ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO metric_minutes AS mm (name, labels, minute, value)
    SELECT y.m, y.l, y.minute, sum(y.n)
      FROM (SELECT x.m,
                   CASE WHEN x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
                        THEN jsonb_set(x.l, '{policy}', '"_other"') ELSE x.l END AS l,
                   date_trunc('minute', now() - coalesce(x.a, 0) * interval '1 millisecond') AS minute,
                   x.n
              FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
             WHERE x.m IS NOT NULL AND x.l IS NOT NULL AND x.n > 0) y
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (name, labels, minute) DO UPDATE SET value = mm.value + EXCLUDED.value;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  RETURN json_build_object('hits', v_hits, 'dropped', v_dropped, 'counts', v_rows);
END
$function$;
COMMENT ON FUNCTION admit_observe_flush(p_hits jsonb, p_counts jsonb, p_max_policies integer, p_lock_timeout_ms integer) IS 'Writes one isolate''s tally in one statement: deny-cache refusals into their windows'' counters and decision counts into the metric series.';

CREATE OR REPLACE FUNCTION public.admit_sweep_metrics()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n integer;
BEGIN
  EXECUTE $q$
    WITH moved AS (
      DELETE FROM metric_minutes
       WHERE ctid = ANY (ARRAY(SELECT ctid FROM metric_minutes WHERE minute < now() - interval '25 hours'
                                ORDER BY minute LIMIT 10000 FOR UPDATE SKIP LOCKED))
      RETURNING name, labels, value
    ), summed AS (
      SELECT name, labels, sum(value)::bigint AS value FROM moved GROUP BY name, labels
    )
    INSERT INTO metric_totals AS t (name, labels, value)
    SELECT name, labels, value FROM summed ORDER BY name, labels
    ON CONFLICT (name, labels) DO UPDATE SET value = t.value + EXCLUDED.value
  $q$;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$function$;
COMMENT ON FUNCTION admit_sweep_metrics() IS 'Sweeper: minute rows older than 25 hours go into their series'' total, a bounded batch per call.';
