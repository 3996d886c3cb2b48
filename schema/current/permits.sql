-- GENERATED FILE: DO NOT EDIT.
--
-- The permits part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Sequences

CREATE SEQUENCE admit_fencing_token AS bigint INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;
COMMENT ON SEQUENCE admit_fencing_token IS 'Fencing tokens for every grant of a lease or permit: tokens of one key strictly increase, across takeovers and sweeps.';

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE invoices (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  subscription_id text NOT NULL,
  kind text NOT NULL,
  number integer NOT NULL,
  work_ms integer NOT NULL,
  started_at timestamp with time zone NOT NULL,
  finished_at timestamp with time zone NOT NULL,
  CONSTRAINT invoices_pkey PRIMARY KEY (id),
  CONSTRAINT invoices_number_unique UNIQUE (subscription_id, number),
  CONSTRAINT invoices_kind CHECK ((kind = ANY (ARRAY['usage'::text, 'recurring'::text]))),
  CONSTRAINT invoices_subscription_length CHECK (((char_length(subscription_id) >= 1) AND (char_length(subscription_id) <= 200))),
  CONSTRAINT invoices_work_range CHECK (((work_ms >= 0) AND (work_ms <= 3000)))
);
COMMENT ON TABLE invoices IS 'Invoices generated under a subscription''s in-request lock: at most one generation of a subscription at a time.';

CREATE TABLE permits (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  slot integer NOT NULL,
  holder text NOT NULL,
  fencing_token bigint NOT NULL,
  ttl_ms integer NOT NULL,
  claimed_at timestamp with time zone NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  renewed_at timestamp with time zone,
  released_at timestamp with time zone,
  timed_out_at timestamp with time zone,
  CONSTRAINT permits_pkey PRIMARY KEY (id),
  CONSTRAINT permits_fencing_token_key UNIQUE (fencing_token),
  CONSTRAINT permits_holder_length CHECK (((char_length(holder) >= 1) AND (char_length(holder) <= 200))),
  CONSTRAINT permits_kind CHECK ((kind = ANY (ARRAY['semaphore'::text, 'lease'::text]))),
  CONSTRAINT permits_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
  CONSTRAINT permits_one_ending CHECK (((released_at IS NULL) OR (timed_out_at IS NULL))),
  CONSTRAINT permits_slot_range CHECK ((((slot >= 0) AND (slot <= 9999)) AND ((kind = 'semaphore'::text) OR (slot = 0)))),
  CONSTRAINT permits_ttl_range CHECK (((ttl_ms >= 1000) AND (ttl_ms <= 3600000)))
);
COMMENT ON TABLE permits IS 'Every claim of a lease or semaphore permit, kept as history: active while neither released nor timed out and expires_at is ahead; an expired claim is marked timed out by the next decision on its key or the sweeper.';
CREATE INDEX permits_finished_at ON public.permits USING btree (COALESCE(released_at, timed_out_at)) WHERE ((released_at IS NOT NULL) OR (timed_out_at IS NOT NULL));
CREATE UNIQUE INDEX permits_one_per_slot ON public.permits USING btree (kind, name, slot) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE INDEX permits_unfinished_by_expiry ON public.permits USING btree (expires_at) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE INDEX permits_unfinished_by_key_expiry ON public.permits USING btree (kind, name, expires_at) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE TRIGGER permits_deleted AFTER DELETE ON public.permits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_inserted AFTER INSERT ON public.permits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_updated AFTER UPDATE ON public.permits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();

CREATE TABLE semaphore_free_slots (
  name text NOT NULL,
  slot integer NOT NULL,
  CONSTRAINT semaphore_free_slots_pkey PRIMARY KEY (name, slot),
  CONSTRAINT semaphore_free_slots_name_fkey FOREIGN KEY (name) REFERENCES semaphores(name) ON DELETE CASCADE
);
COMMENT ON TABLE semaphore_free_slots IS 'The free slots of each semaphore, kept by triggers on permits, so an acquire takes the lowest free slot with an index look-up.';

CREATE TABLE semaphores (
  name text NOT NULL,
  permits integer NOT NULL,
  default_ttl_ms integer NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  in_use integer DEFAULT 0 NOT NULL,
  CONSTRAINT semaphores_pkey PRIMARY KEY (name),
  CONSTRAINT semaphores_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
  CONSTRAINT semaphores_permits_range CHECK (((permits >= 1) AND (permits <= 10000))),
  CONSTRAINT semaphores_ttl_range CHECK (((default_ttl_ms >= 1000) AND (default_ttl_ms <= 3600000)))
);
COMMENT ON TABLE semaphores IS 'Semaphores: their number of permits and default TTL, and how many are in use.';
CREATE TRIGGER semaphores_counted BEFORE INSERT ON public.semaphores FOR EACH ROW EXECUTE FUNCTION admit_semaphores_sized();
CREATE TRIGGER semaphores_resized AFTER INSERT OR UPDATE OF permits ON public.semaphores FOR EACH ROW EXECUTE FUNCTION admit_semaphores_resized();

-- Functions

CREATE OR REPLACE FUNCTION public.admit_generate_invoice(p_subscription_id text, p_kind text, p_work_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row invoices;
BEGIN
  IF p_work_ms > 0 THEN
    PERFORM pg_sleep(p_work_ms / 1000.0);
  END IF;
  INSERT INTO invoices (subscription_id, kind, number, work_ms, started_at, finished_at)
  SELECT p_subscription_id, p_kind, coalesce(max(number), 0) + 1, p_work_ms, now(), clock_timestamp()
    FROM invoices WHERE subscription_id = p_subscription_id
  RETURNING * INTO v_row;
  RETURN json_build_object(
    'id', v_row.id,
    'subscription_id', v_row.subscription_id,
    'kind', v_row.kind,
    'number', v_row.number,
    'work_ms', v_row.work_ms,
    'started_at', admit_rfc3339(v_row.started_at),
    'finished_at', admit_rfc3339(v_row.finished_at));
END
$function$;
COMMENT ON FUNCTION admit_generate_invoice(p_subscription_id text, p_kind text, p_work_ms integer) IS 'The work done under a subscription''s in-request lock: the invoice row (p_work_ms of simulated work first).';

CREATE OR REPLACE FUNCTION public.admit_lease_list(p_prefix text, p_after text, p_limit integer, p_names text[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(json_build_object(
           'key', p.name,
           'held', true,
           'holder', p.holder,
           'fencing_token', p.fencing_token,
           'claimed_at', admit_rfc3339(p.claimed_at),
           'expires_at', admit_rfc3339(p.expires_at)) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM permits
           WHERE kind = 'lease' AND released_at IS NULL AND timed_out_at IS NULL
             AND expires_at > clock_timestamp()
             AND (p_prefix IS NULL OR starts_with(name, p_prefix))
             AND (p_names IS NULL OR name LIKE ANY (p_names))
             AND name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$function$;
COMMENT ON FUNCTION admit_lease_list(p_prefix text, p_after text, p_limit integer, p_names text[]) IS 'Leases held now, by key after a cursor, optionally under a prefix.';

CREATE OR REPLACE FUNCTION public.admit_lease_state(p_key text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'key', p_key,
    'held', p.id IS NOT NULL,
    'holder', p.holder,
    'fencing_token', p.fencing_token,
    'claimed_at', admit_rfc3339(p.claimed_at),
    'expires_at', admit_rfc3339(p.expires_at))
  FROM (SELECT 1) one
  LEFT JOIN permits p
    ON p.kind = 'lease' AND p.name = p_key AND p.released_at IS NULL AND p.timed_out_at IS NULL
   AND p.expires_at > clock_timestamp()
$function$;
COMMENT ON FUNCTION admit_lease_state(p_key text) IS 'Who holds a lease key now, and until when.';

CREATE OR REPLACE FUNCTION public.admit_permit_acquire(p_lock_key bigint, p_kind text, p_name text, p_holder text, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_permits integer;
  v_ttl integer;
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_slot integer;
  v_busy json;
  v_row permits;
BEGIN
  SELECT c.permits, c.ttl_ms INTO v_permits, v_ttl FROM admit_permit_config(p_kind, p_name, p_ttl_ms) c;
  IF v_permits IS NULL THEN
    RETURN json_build_object('status', 'not_found');
  END IF;

  -- Full already (by this statement's snapshot): refuse without queueing on the lock, so a burst of
  -- losers does not stand in line behind each other just to hear "no".
  v_busy := admit_permit_busy(p_kind, p_name, v_permits, v_now);
  IF (v_busy->>'in_use')::integer >= v_permits THEN
    RETURN v_busy;
  END IF;

  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  -- Under the lock each statement sees every earlier holder's committed claim (READ COMMITTED).
  v_now := coalesce(p_now, clock_timestamp());
  SELECT c.permits INTO v_permits FROM admit_permit_config(p_kind, p_name, p_ttl_ms) c;
  PERFORM admit_permits_time_out(p_kind, p_name, v_now);
  v_busy := admit_permit_busy(p_kind, p_name, v_permits, v_now);
  IF (v_busy->>'in_use')::integer >= v_permits THEN
    RETURN v_busy;
  END IF;

  -- Fewer than `permits` unfinished claims, so some slot below `permits` is free.
  IF p_kind = 'semaphore' THEN
    SELECT min(f.slot) INTO v_slot FROM semaphore_free_slots f WHERE f.name = p_name;
  ELSE
    v_slot := 0;
  END IF;

  INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
  VALUES (p_kind, p_name, v_slot, p_holder, nextval('admit_fencing_token'), v_ttl, v_now, v_now + v_ttl * interval '1 millisecond')
  RETURNING * INTO v_row;

  RETURN json_build_object('status', 'acquired', 'permit', admit_permit_json(v_row));
END
$function$;
COMMENT ON FUNCTION admit_permit_acquire(p_lock_key bigint, p_kind text, p_name text, p_holder text, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Decides one acquire of a lease or semaphore permit under its key''s advisory lock: the claim with a fresh fencing token and the lowest free slot, or busy with the earliest expiry.';

CREATE OR REPLACE FUNCTION public.admit_permit_acquire_batch(p_items jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  it record;
BEGIN
  FOR it IN
    SELECT t.e, t.i::integer AS i
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, i)
     ORDER BY (t.e ->> 'key')::bigint, t.i
  LOOP
    v_res[it.i] := admit_permit_acquire((it.e ->> 'key')::bigint, it.e ->> 'kind', it.e ->> 'name', it.e ->> 'holder',
                                        (it.e ->> 'ttl_ms')::integer, p_lock_timeout_ms);
  END LOOP;
  RETURN array_to_json(v_res);
END
$function$;
COMMENT ON FUNCTION admit_permit_acquire_batch(p_items jsonb, p_lock_timeout_ms integer) IS 'Decides several acquires in one statement, each as admit_permit_acquire alone would, locking keys in one global order.';

CREATE OR REPLACE FUNCTION public.admit_permit_busy(p_kind text, p_name text, p_permits integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'status', 'busy',
    'permits', p_permits,
    'in_use', u.n,
    'holder', CASE WHEN p_kind = 'lease' THEN (
      SELECT p.holder FROM permits p
       WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL AND p.expires_at > p_now
       ORDER BY p.expires_at LIMIT 1) END,
    'expires_at', admit_rfc3339(e.t),
    'retry_after_ms', greatest(0, ceil(extract(epoch FROM e.t - p_now) * 1000))::bigint)
  FROM (SELECT CASE WHEN p_kind = 'semaphore' THEN
                 (SELECT s.in_use FROM semaphores s WHERE s.name = p_name)
                 - (SELECT count(*) FROM permits p
                     WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
                       AND p.expires_at <= p_now)
               ELSE (SELECT count(*) FROM permits p
                      WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
                        AND p.expires_at > p_now)
               END AS n) u,
       (SELECT min(p.expires_at) AS t FROM permits p
         WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
           AND p.expires_at > p_now) e
$function$;
COMMENT ON FUNCTION admit_permit_busy(p_kind text, p_name text, p_permits integer, p_now timestamp with time zone) IS 'The claims in use now, who holds a lease, and when the earliest expires (for Retry-After).';

CREATE OR REPLACE FUNCTION public.admit_permit_check_current(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row permits;
BEGIN
  IF p_kind = 'semaphore' AND NOT EXISTS (SELECT 1 FROM semaphores WHERE name = p_name) THEN
    RETURN json_build_object('status', 'not_found');
  END IF;
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  PERFORM admit_permits_time_out(p_kind, p_name, coalesce(p_now, clock_timestamp()));
  SELECT * INTO v_row FROM permits WHERE id = p_id AND kind = p_kind AND name = p_name;
  IF NOT FOUND THEN
    RETURN json_build_object('status', 'not_current', 'state', 'unknown');
  END IF;
  IF v_row.released_at IS NOT NULL OR v_row.timed_out_at IS NOT NULL THEN
    RETURN json_build_object(
      'status', 'not_current',
      'state', CASE WHEN v_row.released_at IS NOT NULL THEN 'released' ELSE 'timed_out' END,
      'released_at', admit_rfc3339(v_row.released_at),
      'timed_out_at', admit_rfc3339(v_row.timed_out_at));
  END IF;
  RETURN NULL;
END
$function$;
COMMENT ON FUNCTION admit_permit_check_current(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'The owner check of renew and release: NULL when p_id is the key''s current claim, else why not.';

CREATE OR REPLACE FUNCTION public.admit_permit_config(p_kind text, p_name text, p_ttl_ms integer, OUT permits integer, OUT ttl_ms integer)
 RETURNS record
 LANGUAGE sql
 STABLE
AS $function$
  SELECT 1, p_ttl_ms WHERE p_kind = 'lease'
  UNION ALL
  SELECT s.permits, coalesce(p_ttl_ms, s.default_ttl_ms) FROM semaphores s WHERE p_kind = 'semaphore' AND s.name = p_name
$function$;
COMMENT ON FUNCTION admit_permit_config(p_kind text, p_name text, p_ttl_ms integer, OUT permits integer, OUT ttl_ms integer) IS 'The lock key, size and TTL a claim of this kind and name is decided under; NULL size for a semaphore never created.';

CREATE OR REPLACE FUNCTION public.admit_permit_json(p permits)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE p.kind
    WHEN 'lease' THEN json_build_object(
      'lease_id', p.id, 'key', p.name, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
    ELSE json_build_object(
      'permit_id', p.id, 'semaphore', p.name, 'slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
  END
$function$;
COMMENT ON FUNCTION admit_permit_json(p permits) IS 'A claim''s public shape: a lease or a semaphore permit.';

CREATE OR REPLACE FUNCTION public.admit_permit_release(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits SET released_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now;
  IF NOT FOUND THEN
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'released');
END
$function$;
COMMENT ON FUNCTION admit_permit_release(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Releases the holder''s current claim (its slot is free at once); refused when the claim is no longer current.';

CREATE OR REPLACE FUNCTION public.admit_permit_renew(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
  v_row permits;
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits
     SET ttl_ms = coalesce(p_ttl_ms, ttl_ms),
         expires_at = v_now + coalesce(p_ttl_ms, ttl_ms) * interval '1 millisecond',
         renewed_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now
  RETURNING * INTO v_row;
  IF NOT FOUND THEN
    -- Ended since the check (the sweeper, or its expiry passed): say how, as the check would.
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'renewed', 'permit', admit_permit_json(v_row));
END
$function$;
COMMENT ON FUNCTION admit_permit_renew(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Extends the holder''s current claim; refused when the claim is no longer current (released, timed out or taken over).';

CREATE OR REPLACE FUNCTION public.admit_permits_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now_unfinished jsonb := '[]';
  v_was_unfinished jsonb := '[]';
BEGIN
  IF TG_OP <> 'DELETE' THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'slot', slot, 'n', 1)), '[]') INTO v_now_unfinished
      FROM new_rows WHERE kind = 'semaphore' AND released_at IS NULL AND timed_out_at IS NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'slot', slot, 'n', -1)), '[]') INTO v_was_unfinished
      FROM old_rows WHERE kind = 'semaphore' AND released_at IS NULL AND timed_out_at IS NULL;
  END IF;
  IF v_now_unfinished || v_was_unfinished <> '[]' THEN
    PERFORM admit_semaphore_claims_changed(v_now_unfinished || v_was_unfinished);
  END IF;
  RETURN NULL;
END
$function$;
COMMENT ON FUNCTION admit_permits_changed() IS 'Trigger: a statement''s changes to semaphore claims move the free slots and in_use.';

CREATE OR REPLACE FUNCTION public.admit_permits_time_out(p_kind text, p_name text, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH t AS (
    UPDATE permits SET timed_out_at = expires_at
     WHERE kind = p_kind AND name = p_name AND released_at IS NULL AND timed_out_at IS NULL AND expires_at <= p_now
    RETURNING 1
  )
  SELECT count(*)::integer FROM t
$function$;
COMMENT ON FUNCTION admit_permits_time_out(p_kind text, p_name text, p_now timestamp with time zone) IS 'Marks the expired unfinished claims of one key timed out (the caller holds the key''s lock).';

CREATE OR REPLACE FUNCTION public.admit_semaphore_claims_changed(p_delta jsonb)
 RETURNS void
 LANGUAGE sql
AS $function$
  WITH d AS (
    SELECT e ->> 'name' AS name, (e ->> 'slot')::integer AS slot, sum((e ->> 'n')::integer)::integer AS n
      FROM jsonb_array_elements(p_delta) e GROUP BY 1, 2 HAVING sum((e ->> 'n')::integer) <> 0
  ), counted AS (
    UPDATE semaphores s SET in_use = s.in_use + x.n
      FROM (SELECT name, sum(n)::integer AS n FROM d GROUP BY name) x
     WHERE s.name = x.name AND x.n <> 0
    RETURNING 1
  ), taken AS (
    DELETE FROM semaphore_free_slots f USING d WHERE d.n > 0 AND f.name = d.name AND f.slot = d.slot
    RETURNING 1
  ), freed AS (
    INSERT INTO semaphore_free_slots (name, slot)
    SELECT d.name, d.slot FROM d JOIN semaphores s ON s.name = d.name
     WHERE d.n < 0 AND d.slot < s.permits
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  SELECT FROM (SELECT count(*) FROM counted) a, (SELECT count(*) FROM taken) b, (SELECT count(*) FROM freed) c
$function$;
COMMENT ON FUNCTION admit_semaphore_claims_changed(p_delta jsonb) IS 'A statement''s change to the semaphores'' unfinished claims, per slot and per semaphore.';

CREATE OR REPLACE FUNCTION public.admit_semaphore_json(p_name text, p_holders integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_semaphore_json(p_name, p_holders, NULL)
$function$;
COMMENT ON FUNCTION admit_semaphore_json(p_name text, p_holders integer) IS 'A semaphore''s public shape with up to p_holders holders.';

CREATE OR REPLACE FUNCTION public.admit_semaphore_json(p_name text, p_holders integer, p_after_slot integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'name', s.name,
    'permits', s.permits,
    'default_ttl_ms', s.default_ttl_ms,
    'in_use', u.n,
    'available', greatest(s.permits - u.n, 0),
    'holders', coalesce(h.list, '[]'::json),
    'more_holders', u.after - h.k,
    'created_at', admit_rfc3339(s.created_at),
    'updated_at', admit_rfc3339(s.updated_at))
  FROM semaphores s
  CROSS JOIN (SELECT clock_timestamp() AS t) at_
  CROSS JOIN LATERAL (
    SELECT count(*)::integer AS n, count(*) FILTER (WHERE p.slot > coalesce(p_after_slot, -1))::integer AS after
      FROM permits p
     WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
       AND (p.expires_at > at_.t) IS TRUE
  ) u
  CROSS JOIN LATERAL (
    SELECT count(*)::integer AS k,
           json_agg(json_build_object('slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
                                      'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
                    ORDER BY p.slot) AS list
      FROM (SELECT * FROM permits p
             WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
               AND p.slot > coalesce(p_after_slot, -1) AND p.expires_at > at_.t
             ORDER BY p.slot LIMIT p_holders) p
  ) h
  WHERE s.name = p_name
$function$;
COMMENT ON FUNCTION admit_semaphore_json(p_name text, p_holders integer, p_after_slot integer) IS 'A semaphore''s public shape with up to p_holders holders after slot p_after_slot.';

CREATE OR REPLACE FUNCTION public.admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer, p_names text[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_page(array_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), p_limit, p_max_bytes)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
             AND (p_names IS NULL OR name LIKE ANY (p_names))
           ORDER BY name LIMIT p_limit + 1) s
$function$;
COMMENT ON FUNCTION admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer, p_names text[]) IS 'Semaphores by name after a cursor, one bounded page.';

CREATE OR REPLACE FUNCTION public.admit_semaphore_put(p_lock_key bigint, p_name text, p_permits integer, p_default_ttl_ms integer, p_create_only boolean, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_created boolean;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  IF p_create_only THEN
    INSERT INTO semaphores (name, permits, default_ttl_ms)
    VALUES (p_name, p_permits, coalesce(p_default_ttl_ms, 60000))
    ON CONFLICT (name) DO NOTHING;
    v_created := FOUND;
  ELSE
    INSERT INTO semaphores AS s (name, permits, default_ttl_ms)
    VALUES (p_name, p_permits, coalesce(p_default_ttl_ms, 60000))
    ON CONFLICT (name) DO UPDATE
      SET permits = excluded.permits, default_ttl_ms = coalesce(p_default_ttl_ms, s.default_ttl_ms), updated_at = now()
    RETURNING (xmax = 0) INTO v_created;
  END IF;
  RETURN json_build_object('created', v_created, 'semaphore', admit_semaphore_state(p_name));
END
$function$;
COMMENT ON FUNCTION admit_semaphore_put(p_lock_key bigint, p_name text, p_permits integer, p_default_ttl_ms integer, p_create_only boolean, p_lock_timeout_ms integer) IS 'Creates or resizes a semaphore under its lock; resizing never takes a permit from a holder.';

CREATE OR REPLACE FUNCTION public.admit_semaphore_state(p_name text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_semaphore_json(p_name, 1000, NULL)
$function$;
COMMENT ON FUNCTION admit_semaphore_state(p_name text) IS 'One semaphore with its first 1 000 holders by slot.';

CREATE OR REPLACE FUNCTION public.admit_semaphores_resized()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_old integer := CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.permits END;
BEGIN
  DELETE FROM semaphore_free_slots WHERE name = NEW.name AND slot >= NEW.permits;
  INSERT INTO semaphore_free_slots (name, slot)
  SELECT NEW.name, i FROM generate_series(v_old, NEW.permits - 1) i
   WHERE NOT EXISTS (SELECT 1 FROM permits p
                      WHERE p.kind = 'semaphore' AND p.name = NEW.name AND p.slot = i
                        AND p.released_at IS NULL AND p.timed_out_at IS NULL)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$function$;
COMMENT ON FUNCTION admit_semaphores_resized() IS 'Trigger: a resized semaphore gains the free slots it grew by and drops those it shrank past.';

CREATE OR REPLACE FUNCTION public.admit_semaphores_sized()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.in_use := (SELECT count(*) FROM permits p
                    WHERE p.kind = 'semaphore' AND p.name = NEW.name AND p.released_at IS NULL AND p.timed_out_at IS NULL);
  END IF;
  RETURN NEW;
END
$function$;
COMMENT ON FUNCTION admit_semaphores_sized() IS 'Trigger: a new semaphore''s slots are all free.';

CREATE OR REPLACE FUNCTION public.admit_sweep_permits()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  k record;
  n integer := 0;
  d integer;
BEGIN
  FOR k IN
    SELECT DISTINCT kind, name FROM (
      SELECT kind, name FROM permits
       WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at <= clock_timestamp()
       ORDER BY expires_at LIMIT 500) due
  LOOP
    IF pg_try_advisory_xact_lock(admit_fnv64(k.kind || '/' || k.name)) THEN
      n := n + admit_permits_time_out(k.kind, k.name, clock_timestamp());
    END IF;
  END LOOP;

  EXECUTE $q$
    WITH old AS (
      SELECT id FROM permits
       WHERE (released_at IS NOT NULL OR timed_out_at IS NOT NULL)
         AND coalesce(released_at, timed_out_at) < now() - interval '30 days'
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM permits p USING old WHERE p.id = old.id
  $q$;
  GET DIAGNOSTICS d = ROW_COUNT;
  RETURN n + d;
END
$function$;
COMMENT ON FUNCTION admit_sweep_permits() IS 'Sweeper: marks expired claims timed out and deletes old history, a bounded batch, never waiting on a held row.';
