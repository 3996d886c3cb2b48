-- An acquire costs index look-ups, whatever the number of holders (issue 28, item 7).
--
-- 000020's admit_permit_acquire, under the semaphore's lock, counted every unfinished claim of the
-- semaphore to time out the expired ones, counted every live one twice (before and after the lock),
-- and found the lowest free slot with a self-join over the holders: quadratic in the holders. A
-- semaphore of 10 000 permits filled by bursts of 200 acquires answered 2 558 × 201 and the rest 503
-- (the queue behind the lock outlived LOCK_TIMEOUT_MS), though it was never full.
--
-- Now a semaphore keeps, beside its claims:
--  * semaphores.in_use: how many of its claims are unfinished (neither released nor timed out);
--  * semaphore_free_slots: the slots in [0, permits) that no unfinished claim holds.
-- Both are kept by triggers on `permits` (per statement, from its transition tables) and on
-- `semaphores` (a resize), so every writer keeps them exact: the three admit_permit_* functions,
-- the sweeper, and a test writing rows by hand. An acquire times out the expired claims through an
-- index by (kind, name, expires_at) — only the expired ones are read — then reads in_use, the
-- earliest expiry and min(slot) of the free slots: each an index look-up. Live claims are in_use less
-- the unfinished ones already expired, so the count before the lock is a range of the same index.
-- The lowest-free-slot rule and the fencing tokens are unchanged.

CREATE INDEX permits_unfinished_by_key_expiry ON permits (kind, name, expires_at)
  WHERE released_at IS NULL AND timed_out_at IS NULL;

ALTER TABLE semaphores ADD COLUMN in_use integer NOT NULL DEFAULT 0;
UPDATE semaphores s SET in_use = (
  SELECT count(*) FROM permits p
   WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL);

CREATE TABLE semaphore_free_slots (
  name text NOT NULL REFERENCES semaphores (name) ON DELETE CASCADE,
  slot integer NOT NULL,
  PRIMARY KEY (name, slot)
);
INSERT INTO semaphore_free_slots (name, slot)
SELECT s.name, i FROM semaphores s CROSS JOIN LATERAL generate_series(0, s.permits - 1) i
 WHERE NOT EXISTS (SELECT 1 FROM permits p
                    WHERE p.kind = 'semaphore' AND p.name = s.name AND p.slot = i
                      AND p.released_at IS NULL AND p.timed_out_at IS NULL);

-- A statement's change to the semaphores' unfinished claims: +1 for a row that is one now, -1 for
-- one that was; summed per slot, a slot taken (> 0) leaves the free slots and a slot freed (< 0)
-- joins them (below the semaphore's size); summed per semaphore, in_use moves by it.
CREATE FUNCTION admit_semaphore_claims_changed(p_delta jsonb) RETURNS void
LANGUAGE sql AS $$
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
$$;

-- The triggers of every statement writing `permits`: its changes to semaphores' unfinished claims
-- (nothing for a lease's, which has no semaphore). INSERT has only new rows, DELETE only old ones.
CREATE FUNCTION admit_permits_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
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
$$;

CREATE TRIGGER permits_inserted AFTER INSERT ON permits REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_updated AFTER UPDATE ON permits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_deleted AFTER DELETE ON permits REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();

-- A new semaphore's slots are all free; a resize adds the slots it grows by (but those an unfinished
-- claim from an earlier, larger size still holds) or drops the free slots it shrinks past.
CREATE FUNCTION admit_semaphores_sized() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.in_use := (SELECT count(*) FROM permits p
                    WHERE p.kind = 'semaphore' AND p.name = NEW.name AND p.released_at IS NULL AND p.timed_out_at IS NULL);
  END IF;
  RETURN NEW;
END
$$;

CREATE FUNCTION admit_semaphores_resized() RETURNS trigger
LANGUAGE plpgsql AS $$
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
$$;

CREATE TRIGGER semaphores_counted BEFORE INSERT ON semaphores
  FOR EACH ROW EXECUTE FUNCTION admit_semaphores_sized();
CREATE TRIGGER semaphores_resized AFTER INSERT OR UPDATE OF permits ON semaphores
  FOR EACH ROW EXECUTE FUNCTION admit_semaphores_resized();

-- The claims in use now (in_use less the unfinished ones already expired), who (for a lease), and
-- when the earliest expires (Retry-After); every part an index look-up or range of the expired.
CREATE OR REPLACE FUNCTION admit_permit_busy(p_kind text, p_name text, p_permits integer, p_now timestamptz) RETURNS json
LANGUAGE sql STABLE AS $$
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
$$;

-- As 000020's, with the lowest free slot read from semaphore_free_slots (a lease has slot 0 only).
CREATE OR REPLACE FUNCTION admit_permit_acquire(
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
$$;
