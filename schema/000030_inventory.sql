-- Inventory without overselling: rooms per night, multi-night bookings, expiring holds (seed 003).
--
-- Mechanism (the seed's): one token row per room-night. A booking claims `quantity` free tokens on
-- every night with SELECT … FOR UPDATE SKIP LOCKED, so buyers of the same night take different
-- rows and never wait for each other, not even for each other's commits; a token can carry one
-- booking only, so nothing is sold twice. Measured against a guarded per-night counter on one hot
-- night (bench/inventory-designs.ts, peer SQL in bench/peers/inventory_counter.sql): equal with
-- commits not flushed, and well ahead once every commit waits for the disk, because the counter
-- row is held by each buyer until its commit is durable. README "Inventory" has the figures.
--
-- A token is free when booking_id IS NULL, or when it is held (held_until set) and the hold has
-- lapsed on the database clock: expired holds are free for the next buyer at once, and the
-- sweeper tidies them up later. Confirming clears held_until (never extends it).
--
-- Locks and order:
--  * buyers (fast path) only ever SKIP LOCKED: they never wait, so they are in no wait cycle;
--  * every waiting lock on tokens is taken in (night, slot) order, after the booking row where a
--    booking row is involved (confirm, cancel) — a fixed order, so no deadlock;
--  * stock changes lock the night rows in date order, then their tokens in (night, slot) order.

CREATE TABLE inventory_nights (
  item     text NOT NULL,
  night    date NOT NULL,
  capacity integer NOT NULL CHECK (capacity >= 0),
  PRIMARY KEY (item, night),
  CONSTRAINT inventory_nights_item_length CHECK (char_length(item) BETWEEN 1 AND 200)
);

CREATE TABLE inventory_bookings (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  item         text NOT NULL,
  holder       text NOT NULL,
  check_in     date NOT NULL,
  check_out    date NOT NULL,
  quantity     integer NOT NULL,
  -- 'held' past expires_at is reported as 'expired'; confirm, cancel or the sweeper make it so in the row.
  status       text NOT NULL,
  expires_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  confirmed_at timestamptz,
  cancelled_at timestamptz,
  CONSTRAINT inventory_bookings_item_length CHECK (char_length(item) BETWEEN 1 AND 200),
  CONSTRAINT inventory_bookings_holder_length CHECK (char_length(holder) BETWEEN 1 AND 200),
  CONSTRAINT inventory_bookings_dates CHECK (check_out > check_in AND check_out - check_in <= 366),
  CONSTRAINT inventory_bookings_quantity CHECK (quantity >= 1),
  CONSTRAINT inventory_bookings_status CHECK (status IN ('held', 'confirmed', 'cancelled', 'expired')),
  CONSTRAINT inventory_bookings_hold_expiry CHECK (status <> 'held' OR expires_at IS NOT NULL)
);
CREATE INDEX inventory_bookings_held ON inventory_bookings (expires_at) WHERE status = 'held';

-- One row per room-night: slots 1..capacity of each night.
CREATE TABLE inventory_tokens (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item       text NOT NULL,
  night      date NOT NULL,
  slot       integer NOT NULL,
  booking_id uuid REFERENCES inventory_bookings (id),
  held_until timestamptz,
  CONSTRAINT inventory_tokens_slot UNIQUE (item, night, slot),
  CONSTRAINT inventory_tokens_hold_has_booking CHECK (held_until IS NULL OR booking_id IS NOT NULL),
  FOREIGN KEY (item, night) REFERENCES inventory_nights (item, night)
);
-- What a claim scans: never-taken tokens of a night in slot order, and held ones by expiry.
CREATE INDEX inventory_tokens_free ON inventory_tokens (item, night, slot) WHERE booking_id IS NULL;
CREATE INDEX inventory_tokens_held ON inventory_tokens (item, night, held_until) WHERE held_until IS NOT NULL;
CREATE INDEX inventory_tokens_booking ON inventory_tokens (booking_id) WHERE booking_id IS NOT NULL;
CREATE INDEX inventory_tokens_expiry ON inventory_tokens (held_until) WHERE held_until IS NOT NULL;

CREATE FUNCTION admit_inventory_booking_json(b inventory_bookings) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'booking_id', b.id,
    'item', b.item,
    'holder', b.holder,
    'check_in', to_char(b.check_in, 'YYYY-MM-DD'),
    'check_out', to_char(b.check_out, 'YYYY-MM-DD'),
    'quantity', b.quantity,
    'status', CASE WHEN b.status = 'held' AND b.expires_at <= now() THEN 'expired' ELSE b.status END,
    'expires_at', admit_rfc3339(b.expires_at),
    'created_at', admit_rfc3339(b.created_at),
    'confirmed_at', admit_rfc3339(b.confirmed_at),
    'cancelled_at', admit_rfc3339(b.cancelled_at)
  )
$$;

-- Every night of [p_from, p_to), with or without stock; held counts unexpired holds only, so
-- available = capacity - booked - held always, and a night without stock is all zeros.
CREATE FUNCTION admit_inventory_availability(p_item text, p_from date, p_to date) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d, 'YYYY-MM-DD'),
           'capacity', coalesce(t.capacity, 0),
           'booked', coalesce(t.booked, 0),
           'held', coalesce(t.held, 0),
           'available', coalesce(t.capacity - t.booked - t.held, 0))
         ORDER BY d), '[]'::json)
    FROM generate_series(p_from, p_to - 1, interval '1 day') d
    LEFT JOIN LATERAL (
      SELECT count(*)::integer AS capacity,
             count(*) FILTER (WHERE booking_id IS NOT NULL AND held_until IS NULL)::integer AS booked,
             count(*) FILTER (WHERE held_until > now())::integer AS held
        FROM inventory_tokens WHERE item = p_item AND night = d::date
    ) t ON true
$$;

-- Sets the capacity of every night in [p_from, p_to). All or nothing: if any night has more rooms
-- booked + held (unexpired) than p_capacity, nothing changes and those nights are returned.
-- Growing adds slots; shrinking removes free (or lapsed) tokens from the top.
-- Returns {"ok": true, "nights": [...]} or {"ok": false, "nights": [{date, capacity, booked, held}]}.
CREATE FUNCTION admit_inventory_set_stock(
  p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_short json;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- New nights: inserted in date order (two writers of the same new night meet on the key).
  INSERT INTO inventory_nights (item, night, capacity)
  SELECT p_item, d::date, 0 FROM generate_series(p_from, p_to - 1, interval '1 day') d ORDER BY d
  ON CONFLICT (item, night) DO NOTHING;
  PERFORM 1 FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to ORDER BY night FOR UPDATE;
  -- Waits for buyers holding tokens of these nights (they never wait, so this cannot deadlock).
  PERFORM 1 FROM inventory_tokens WHERE item = p_item AND night >= p_from AND night < p_to ORDER BY night, slot FOR UPDATE;

  SELECT json_agg(json_build_object('date', to_char(night, 'YYYY-MM-DD'), 'capacity', capacity,
                                    'booked', booked, 'held', held) ORDER BY night)
    INTO v_short
    FROM (SELECT night, count(*)::integer AS capacity,
                 count(*) FILTER (WHERE booking_id IS NOT NULL AND held_until IS NULL)::integer AS booked,
                 count(*) FILTER (WHERE held_until > clock_timestamp())::integer AS held
            FROM inventory_tokens WHERE item = p_item AND night >= p_from AND night < p_to
           GROUP BY night) n
   WHERE booked + held > p_capacity;
  IF v_short IS NOT NULL THEN
    RETURN json_build_object('ok', false, 'nights', v_short);
  END IF;

  -- Shrink: drop the surplus free tokens, highest slots first; lapsed holds count as free.
  WITH ranked AS (
    SELECT id, row_number() OVER (PARTITION BY night ORDER BY slot DESC) AS r,
           count(*) OVER (PARTITION BY night) AS n
      FROM inventory_tokens
     WHERE item = p_item AND night >= p_from AND night < p_to
       AND (booking_id IS NULL OR held_until <= clock_timestamp())
  ), have AS (
    SELECT night, count(*) AS total FROM inventory_tokens
     WHERE item = p_item AND night >= p_from AND night < p_to GROUP BY night
  )
  DELETE FROM inventory_tokens t
   USING ranked k
   WHERE t.id = k.id
     AND k.r <= (SELECT h.total FROM have h WHERE h.night = t.night) - p_capacity;
  -- Grow: add slots above the highest one.
  INSERT INTO inventory_tokens (item, night, slot)
  SELECT p_item, d::date, s
    FROM generate_series(p_from, p_to - 1, interval '1 day') d
   CROSS JOIN LATERAL (
     SELECT count(*)::integer AS total, coalesce(max(slot), 0) AS top
       FROM inventory_tokens WHERE item = p_item AND night = d::date
   ) h
   CROSS JOIN LATERAL generate_series(h.top + 1, h.top + p_capacity - h.total) s
   ORDER BY d, s;
  UPDATE inventory_nights SET capacity = p_capacity WHERE item = p_item AND night >= p_from AND night < p_to;

  RETURN json_build_object('ok', true, 'nights', admit_inventory_availability(p_item, p_from, p_to));
END
$$;

-- Locks up to p_quantity free tokens on every night of [p_check_in, p_check_out), in date order,
-- skipping tokens other buyers hold: never-taken ones first, then lapsed holds. Returns their ids
-- (fewer than nights × quantity when some night is short). Locks are the caller's transaction's.
CREATE FUNCTION admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
  v_more bigint[];
BEGIN
  SELECT coalesce(array_agg(t.id), '{}') INTO v_ids
    FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d
   CROSS JOIN LATERAL (
     SELECT id FROM inventory_tokens
      WHERE item = p_item AND night = d::date AND booking_id IS NULL
      ORDER BY slot LIMIT p_quantity
        FOR UPDATE SKIP LOCKED
   ) t;
  IF cardinality(v_ids) < (p_check_out - p_check_in) * p_quantity THEN
    WITH got AS (
      SELECT night, count(*)::integer AS n FROM inventory_tokens WHERE id = ANY (v_ids) GROUP BY night
    )
    SELECT coalesce(array_agg(t.id), '{}') INTO v_more
      FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d
      LEFT JOIN got ON got.night = d::date
     CROSS JOIN LATERAL (
       SELECT id FROM inventory_tokens
        WHERE item = p_item AND night = d::date AND held_until <= clock_timestamp()
        ORDER BY held_until LIMIT p_quantity - coalesce(got.n, 0)
          FOR UPDATE SKIP LOCKED
     ) t
     WHERE coalesce(got.n, 0) < p_quantity;
    v_ids := v_ids || v_more;
  END IF;
  RETURN v_ids;
END
$$;

-- The whole booking decision in one statement, all or nothing.
-- Fast path: claim with SKIP LOCKED (no waiting) inside a subtransaction; if any night comes up
-- short, the subtransaction is aborted, which releases the tokens it locked at once (a refused
-- buyer does not keep rooms from others while it answers).
-- Slow path, only then: in another subtransaction, wait for whoever holds free tokens of the
-- short nights (in (night, slot) order, holding nothing else, so no wait cycle), count them, let
-- go. Short for real → 409 with those exact counts; rooms that were only locked by buyers who
-- then gave up → claim again (up to 3 claims; the last refusal reports what it could claim).
-- p_hold_ms NULL → confirmed at once; otherwise held until clock_timestamp() + p_hold_ms.
-- Returns {"created": true, "booking": {...}} or {"created": false, "short": [{date, available}]}
-- (a night without stock is short with available 0).
CREATE FUNCTION admit_inventory_book(
  p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text,
  p_hold_ms integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_need integer := (p_check_out - p_check_in) * p_quantity;
  v_ids bigint[] := '{}';
  v_short json;
  v_exact json;
  v_row inventory_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      v_ids := admit_inventory_claim(p_item, p_check_in, p_check_out, p_quantity);
      IF cardinality(v_ids) < v_need THEN
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_short';
      END IF;
      EXIT;
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_short' THEN RAISE; END IF;
    END;
    -- The nights this claim came up short on, and what it could get there.
    SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
      INTO v_short
      FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date)::integer AS got
              FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d) x
     WHERE got < p_quantity;
    EXIT WHEN attempt = 3;
    BEGIN
      PERFORM 1 FROM inventory_tokens t
       WHERE t.item = p_item
         AND t.night IN (SELECT (e ->> 'date')::date FROM json_array_elements(v_short) e)
         AND (t.booking_id IS NULL OR t.held_until <= clock_timestamp())
       ORDER BY t.night, t.slot
         FOR UPDATE OF t;
      SELECT json_agg(json_build_object('date', to_char(n, 'YYYY-MM-DD'), 'available', x.free) ORDER BY n)
        INTO v_exact
        FROM (SELECT (e ->> 'date')::date AS n FROM json_array_elements(v_short) e) s
       CROSS JOIN LATERAL (
         SELECT count(*)::integer AS free FROM inventory_tokens
          WHERE item = p_item AND night = s.n AND (booking_id IS NULL OR held_until <= clock_timestamp())
       ) x
       WHERE x.free < p_quantity;
      RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_let_go';
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_let_go' THEN RAISE; END IF;
    END;
    IF v_exact IS NOT NULL THEN
      RETURN json_build_object('created', false, 'short', v_exact);
    END IF;
  END LOOP;
  IF cardinality(v_ids) < v_need THEN
    RETURN json_build_object('created', false, 'short', v_short);
  END IF;

  INSERT INTO inventory_bookings (item, holder, check_in, check_out, quantity, status, expires_at, confirmed_at)
  VALUES (p_item, p_holder, p_check_in, p_check_out, p_quantity,
          CASE WHEN p_hold_ms IS NULL THEN 'confirmed' ELSE 'held' END,
          CASE WHEN p_hold_ms IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => p_hold_ms / 1000.0) END,
          CASE WHEN p_hold_ms IS NULL THEN clock_timestamp() END)
  RETURNING * INTO v_row;
  UPDATE inventory_tokens SET booking_id = v_row.id, held_until = v_row.expires_at WHERE id = ANY (v_ids);
  RETURN json_build_object('created', true, 'booking', admit_inventory_booking_json(v_row));
END
$$;

-- Releases a hold's or booking's tokens that it still owns (a lapsed hold may have lost some to
-- later buyers already). Locks them in (night, slot) order.
CREATE FUNCTION admit_inventory_release(p_id uuid) RETURNS integer
LANGUAGE sql AS $$
  WITH mine AS (
    SELECT id FROM inventory_tokens WHERE booking_id = p_id ORDER BY night, slot FOR UPDATE
  ), freed AS (
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL
      FROM mine WHERE t.id = mine.id AND t.booking_id = p_id
    RETURNING 1
  )
  SELECT count(*)::integer FROM freed
$$;

-- Confirms a hold. Never extends it: a hold whose expires_at has passed (database clock, read
-- after its tokens are locked) is refused and whatever it still holds is released.
-- Returns {"result": "confirmed"|"not_found"|"expired"|"cancelled", "booking": {...}|null}.
-- Confirming a confirmed booking again answers "confirmed".
CREATE FUNCTION admit_inventory_confirm(p_item text, p_id uuid, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_row inventory_bookings;
  v_mine integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM inventory_bookings WHERE id = p_id AND item = p_item FOR UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('result', 'not_found', 'booking', NULL);
  END IF;
  IF v_row.status <> 'held' THEN
    RETURN json_build_object('result', v_row.status, 'booking', admit_inventory_booking_json(v_row));
  END IF;
  -- Lock its tokens (a buyer taking a lapsed one holds it only until its commit).
  SELECT count(*) INTO v_mine FROM (
    SELECT id FROM inventory_tokens WHERE booking_id = p_id ORDER BY night, slot FOR UPDATE
  ) x;
  IF v_row.expires_at <= clock_timestamp() OR v_mine <> (v_row.check_out - v_row.check_in) * v_row.quantity THEN
    PERFORM admit_inventory_release(p_id);
    UPDATE inventory_bookings SET status = 'expired' WHERE id = p_id RETURNING * INTO v_row;
    RETURN json_build_object('result', 'expired', 'booking', admit_inventory_booking_json(v_row));
  END IF;
  UPDATE inventory_tokens SET held_until = NULL WHERE booking_id = p_id;
  UPDATE inventory_bookings SET status = 'confirmed', confirmed_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN json_build_object('result', 'confirmed', 'booking', admit_inventory_booking_json(v_row));
END
$$;

-- Cancels a booking (held, lapsed or confirmed); its tokens are free at once.
-- Returns the booking, or NULL when unknown. Cancelling again keeps the first cancelled_at.
CREATE FUNCTION admit_inventory_cancel(p_item text, p_id uuid, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_row inventory_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM inventory_bookings WHERE id = p_id AND item = p_item FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF v_row.status = 'cancelled' THEN
    RETURN admit_inventory_booking_json(v_row);
  END IF;
  PERFORM admit_inventory_release(p_id);
  UPDATE inventory_bookings SET status = 'cancelled', cancelled_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN admit_inventory_booking_json(v_row);
END
$$;

CREATE FUNCTION admit_inventory_get_booking(p_item text, p_id uuid) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_inventory_booking_json(b) FROM inventory_bookings b WHERE b.id = p_id AND b.item = p_item
$$;

-- Cron housekeeping, in bounded batches and without waiting for anyone (SKIP LOCKED): hand lapsed
-- holds' tokens back, then mark held bookings past their expiry as 'expired'. Returns rows changed.
CREATE FUNCTION admit_sweep_inventory() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_released integer;
  v_marked integer;
BEGIN
  WITH due AS (
    SELECT id FROM inventory_tokens
     WHERE held_until <= clock_timestamp()
     ORDER BY held_until
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  )
  UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL FROM due WHERE t.id = due.id;
  GET DIAGNOSTICS v_released = ROW_COUNT;

  WITH done AS (
    SELECT id FROM inventory_bookings
     WHERE status = 'held' AND expires_at <= clock_timestamp()
     ORDER BY expires_at
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  )
  UPDATE inventory_bookings b SET status = 'expired' FROM done WHERE b.id = done.id;
  GET DIAGNOSTICS v_marked = ROW_COUNT;
  RETURN v_released + v_marked;
END
$$;
