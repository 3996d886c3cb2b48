-- Mutual exclusion, leases with fencing tokens, and counting semaphores (seeds 002 and 004).
--
-- Three mechanisms, all transaction-scoped (nothing outlives a request's transaction):
--
--  1. In-request locks (functions/permits/locks.ts withTryLock/withLock): pg_try_advisory_xact_lock /
--     pg_advisory_xact_lock on fnv64('lock/' || key). admit_advisory_xact_lock_within() below is the
--     bounded blocking variant: it waits at most p_wait_ms and answers false instead of failing the
--     caller's transaction.
--
--  2. Semaphores of N permits with the lowest free slot, TTLs and a history of every claim (seed 004).
--  3. Leases: a lease is a semaphore of one permit. Both live in `permits` (kind 'semaphore' or
--     'lease') and go through the same three functions, admit_permit_acquire/renew/release.
--
-- Every grant gets a fencing token from one global sequence (CACHE 1, so nextval order is call
-- order across sessions). Grants of one key are serialised by that key's advisory lock, which is held
-- until commit, so tokens of one key strictly increase across every grant — including a takeover after
-- expiry and after its history rows were swept. Tokens are not dense per key; only their order counts.

CREATE FUNCTION admit_advisory_xact_lock_within(p_key bigint, p_wait_ms integer) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_previous text := current_setting('lock_timeout');
BEGIN
  -- The exception block is a subtransaction: a timed-out wait rolls back only itself (and this
  -- set_config), so the caller's transaction stays usable and gets a plain false.
  PERFORM set_config('lock_timeout', greatest(p_wait_ms, 1)::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_key);
  PERFORM set_config('lock_timeout', v_previous, true);
  RETURN true;
EXCEPTION WHEN lock_not_available THEN
  RETURN false;
END
$$;

CREATE SEQUENCE admit_fencing_token AS bigint CACHE 1;

CREATE TABLE semaphores (
  name           text PRIMARY KEY,
  permits        integer NOT NULL,
  default_ttl_ms integer NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT semaphores_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  CONSTRAINT semaphores_permits_range CHECK (permits BETWEEN 1 AND 10000),
  CONSTRAINT semaphores_ttl_range CHECK (default_ttl_ms BETWEEN 1000 AND 3600000)
);

-- Every claim, kept as history (seed 004's log): active while released_at and timed_out_at are NULL
-- and expires_at is in the future. An expired claim is marked timed out (timed_out_at = the instant
-- it expired) by the next acquire/renew/release of its key or by the sweeper, whichever comes first.
CREATE TABLE permits (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind          text NOT NULL,
  name          text NOT NULL,
  slot          integer NOT NULL,
  holder        text NOT NULL,
  fencing_token bigint NOT NULL UNIQUE,
  ttl_ms        integer NOT NULL,
  claimed_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  renewed_at    timestamptz,
  released_at   timestamptz,
  timed_out_at  timestamptz,
  CONSTRAINT permits_kind CHECK (kind IN ('semaphore', 'lease')),
  CONSTRAINT permits_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  CONSTRAINT permits_holder_length CHECK (char_length(holder) BETWEEN 1 AND 200),
  CONSTRAINT permits_slot_range CHECK (slot BETWEEN 0 AND 9999 AND (kind = 'semaphore' OR slot = 0)),
  CONSTRAINT permits_ttl_range CHECK (ttl_ms BETWEEN 1000 AND 3600000),
  CONSTRAINT permits_one_ending CHECK (released_at IS NULL OR timed_out_at IS NULL)
);

-- The database's own guarantee behind the advisory lock: one unfinished claim per (key, slot).
-- It also serves every "active permits of this key" lookup.
CREATE UNIQUE INDEX permits_one_per_slot ON permits (kind, name, slot)
  WHERE released_at IS NULL AND timed_out_at IS NULL;
-- The sweeper: unfinished claims by expiry, and finished ones by when they ended.
CREATE INDEX permits_unfinished_by_expiry ON permits (expires_at)
  WHERE released_at IS NULL AND timed_out_at IS NULL;
CREATE INDEX permits_finished_at ON permits ((coalesce(released_at, timed_out_at)))
  WHERE released_at IS NOT NULL OR timed_out_at IS NOT NULL;

-- The public shape of a claim: a lease {lease_id, key, …} or a semaphore permit {permit_id, semaphore, slot, …}.
CREATE FUNCTION admit_permit_json(p permits) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE p.kind
    WHEN 'lease' THEN json_build_object(
      'lease_id', p.id, 'key', p.name, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
    ELSE json_build_object(
      'permit_id', p.id, 'semaphore', p.name, 'slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
  END
$$;

-- Marks the expired unfinished claims of one key as timed out (callers hold the key's lock).
CREATE FUNCTION admit_permits_time_out(p_kind text, p_name text, p_now timestamptz) RETURNS integer
LANGUAGE sql AS $$
  WITH t AS (
    UPDATE permits SET timed_out_at = expires_at
     WHERE kind = p_kind AND name = p_name AND released_at IS NULL AND timed_out_at IS NULL AND expires_at <= p_now
    RETURNING 1
  )
  SELECT count(*)::integer FROM t
$$;

-- The claims in use now: how many, who (for a lease), and when the earliest expires (Retry-After).
-- One statement, so the count and the expiry come from the same snapshot.
CREATE FUNCTION admit_permit_busy(p_kind text, p_name text, p_permits integer, p_now timestamptz) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'status', 'busy',
    'permits', p_permits,
    'in_use', count(*),
    'holder', CASE WHEN p_kind = 'lease' THEN min(holder) END,
    'expires_at', admit_rfc3339(min(expires_at)),
    'retry_after_ms', greatest(0, ceil(extract(epoch FROM min(expires_at) - p_now) * 1000))::bigint)
  FROM permits
  WHERE kind = p_kind AND name = p_name AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > p_now
$$;

-- The lock key, the semaphore's size and TTL: a lease is one permit with the caller's TTL.
-- Both NULL for a semaphore that was never created.
CREATE FUNCTION admit_permit_config(p_kind text, p_name text, p_ttl_ms integer, OUT permits integer, OUT ttl_ms integer)
LANGUAGE sql STABLE AS $$
  SELECT 1, p_ttl_ms WHERE p_kind = 'lease'
  UNION ALL
  SELECT s.permits, coalesce(p_ttl_ms, s.default_ttl_ms) FROM semaphores s WHERE p_kind = 'semaphore' AND s.name = p_name
$$;

-- Claim the lowest free slot, or refuse at once. One statement, one round trip:
--   {"status":"acquired","permit":{…}} | {"status":"busy",…} | {"status":"not_found"}
-- p_now is for tests only (a database-side clock they can move); the routes leave it NULL, which
-- means clock_timestamp() read after the lock is taken.
CREATE FUNCTION admit_permit_acquire(
  p_lock_key bigint, p_kind text, p_name text, p_holder text, p_ttl_ms integer,
  p_lock_timeout_ms integer, p_now timestamptz DEFAULT NULL
) RETURNS json
LANGUAGE plpgsql AS $$
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

  -- The lowest free slot: 0 if free, else the lowest slot just above a taken one that is free.
  WITH taken AS (
    SELECT slot FROM permits
     WHERE kind = p_kind AND name = p_name AND released_at IS NULL AND timed_out_at IS NULL
  )
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM taken WHERE slot = 0) THEN 0
              ELSE (SELECT min(t.slot) + 1 FROM taken t WHERE NOT EXISTS (SELECT 1 FROM taken u WHERE u.slot = t.slot + 1))
         END
    INTO v_slot;

  INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
  VALUES (p_kind, p_name, v_slot, p_holder, nextval('admit_fencing_token'), v_ttl, v_now, v_now + v_ttl * interval '1 millisecond')
  RETURNING * INTO v_row;

  RETURN json_build_object('status', 'acquired', 'permit', admit_permit_json(v_row));
END
$$;

-- The owner check shared by renew and release, under the key's lock with expired claims marked:
-- NULL when p_id is the current claim of this key, else why not:
-- {"status":"not_current","state":"released"|"timed_out"|"unknown",…} | {"status":"not_found"}.
CREATE FUNCTION admit_permit_check_current(
  p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamptz
) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;

-- Extend the caller's own claim to now + ttl (default: its TTL so far). Refused once it has timed out.
CREATE FUNCTION admit_permit_renew(
  p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_ttl_ms integer,
  p_lock_timeout_ms integer, p_now timestamptz DEFAULT NULL
) RETURNS json
LANGUAGE plpgsql AS $$
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
   WHERE id = p_id
  RETURNING * INTO v_row;
  RETURN json_build_object('status', 'renewed', 'permit', admit_permit_json(v_row));
END
$$;

-- Give back the caller's own claim; its slot is free at once. Refused if it is not current.
CREATE FUNCTION admit_permit_release(
  p_lock_key bigint, p_kind text, p_name text, p_id uuid,
  p_lock_timeout_ms integer, p_now timestamptz DEFAULT NULL
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits SET released_at = v_now WHERE id = p_id;
  RETURN json_build_object('status', 'released');
END
$$;

-- Create or resize a semaphore. Claims beyond a smaller size keep their slots until they end; new
-- claims are granted only while fewer than `permits` are in use.
CREATE FUNCTION admit_semaphore_put(p_lock_key bigint, p_name text, p_permits integer, p_default_ttl_ms integer, p_lock_timeout_ms integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_created boolean;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  INSERT INTO semaphores AS s (name, permits, default_ttl_ms)
  VALUES (p_name, p_permits, p_default_ttl_ms)
  ON CONFLICT (name) DO UPDATE
    SET permits = excluded.permits, default_ttl_ms = excluded.default_ttl_ms, updated_at = now()
  RETURNING (xmax = 0) INTO v_created;
  RETURN json_build_object('created', v_created, 'semaphore', admit_semaphore_state(p_name));
END
$$;

-- A semaphore now: size, in use, and its current holders by slot (read-only: expired claims count as free).
CREATE FUNCTION admit_semaphore_state(p_name text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', s.name,
    'permits', s.permits,
    'default_ttl_ms', s.default_ttl_ms,
    'in_use', coalesce(h.n, 0),
    'available', greatest(s.permits - coalesce(h.n, 0), 0),
    'holders', coalesce(h.list, '[]'::json),
    'created_at', admit_rfc3339(s.created_at),
    'updated_at', admit_rfc3339(s.updated_at))
  FROM semaphores s
  LEFT JOIN LATERAL (
    SELECT count(*) AS n,
           json_agg(json_build_object('slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
                                      'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
                    ORDER BY p.slot) AS list
      FROM permits p
     WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
       AND p.expires_at > clock_timestamp()
  ) h ON true
  WHERE s.name = p_name
$$;

-- Who holds a lease key now, and until when (a key never acquired is simply free).
CREATE FUNCTION admit_lease_state(p_key text) RETURNS json
LANGUAGE sql STABLE AS $$
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
$$;

-- Cron housekeeping: mark a batch of expired claims timed out (slots whose holder crashed), and
-- delete a batch of claims that ended more than 30 days ago. Rows locked by a running request are
-- skipped, never waited for. Deleting history never lowers a key's next fencing token (global sequence).
CREATE FUNCTION admit_sweep_permits() RETURNS integer
LANGUAGE sql AS $$
  WITH due AS (
    SELECT id FROM permits
     WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at <= clock_timestamp()
     ORDER BY expires_at LIMIT 10000
       FOR UPDATE SKIP LOCKED
  ), marked AS (
    UPDATE permits p SET timed_out_at = p.expires_at FROM due WHERE p.id = due.id RETURNING 1
  ), old AS (
    SELECT id FROM permits
     WHERE (released_at IS NOT NULL OR timed_out_at IS NOT NULL)
       AND coalesce(released_at, timed_out_at) < now() - interval '30 days'
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  ), deleted AS (
    DELETE FROM permits p USING old WHERE p.id = old.id RETURNING 1
  )
  SELECT ((SELECT count(*) FROM marked) + (SELECT count(*) FROM deleted))::integer
$$;
