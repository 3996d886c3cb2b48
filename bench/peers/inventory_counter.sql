-- The guarded per-night counter: a bench peer of schema/000030_inventory.sql (seed 003's token
-- rows claimed with FOR UPDATE SKIP LOCKED, which Admit ships). Loadable into a migrated database
-- next to the schema (its own peer_counter_* names, nothing shared); used by
-- bench/inventory-designs.ts. It is the complete capability (stock, availability, holds, confirm,
-- cancel, sweep), with the same answers as the admit_inventory_* functions, so it could be swapped in.
--
-- Mechanism: one row per (item, night) carries capacity, booked and held. A booking runs a guarded
-- UPDATE per night in date order (… WHERE capacity - booked - held >= q), each locking that night's
-- row, inside a subtransaction that a failed guard aborts (undoing the nights already taken and
-- releasing their locks); only then does it lock every night of the range in date order, release
-- expired holds there and answer the short nights exactly. Every change to a night locks the
-- night rows in date order first, so multi-night bookings never deadlock. CHECK (booked + held <=
-- capacity) is the database's own guarantee.
--
-- Why it is not the shipped design: every buyer of a hot night queues on that night's one row and
-- holds its lock until its commit is durable. With fsync + synchronous_commit on it sold 472/s at
-- 16 clients and 381/s at 64 on one hot night, where the tokens sold 1213/s and 944/s; with
-- commits not flushed it was the faster one (2968/s vs 2398/s at 16). README "Inventory" has the
-- table (bench/inventory-designs.ts, with and without --durable).
--
-- Lock order everywhere: peer_counter_nights rows (date order) → peer_counter_holds → peer_counter_bookings.

CREATE TABLE IF NOT EXISTS peer_counter_nights (
  item     text NOT NULL,
  night    date NOT NULL,
  capacity integer NOT NULL,
  booked   integer NOT NULL DEFAULT 0,
  held     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (item, night),
  CONSTRAINT peer_counter_nights_item_length CHECK (char_length(item) BETWEEN 1 AND 200),
  CONSTRAINT peer_counter_nights_counts CHECK (capacity >= 0 AND booked >= 0 AND held >= 0),
  CONSTRAINT peer_counter_nights_no_oversell CHECK (booked + held <= capacity)
);

CREATE TABLE IF NOT EXISTS peer_counter_bookings (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  item         text NOT NULL,
  holder       text NOT NULL,
  check_in     date NOT NULL,
  check_out    date NOT NULL,
  quantity     integer NOT NULL,
  -- 'held' past expires_at is reported as 'expired'; the sweeper (or a cancel) makes it so in the row.
  status       text NOT NULL,
  expires_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  confirmed_at timestamptz,
  cancelled_at timestamptz,
  CONSTRAINT peer_counter_bookings_item_length CHECK (char_length(item) BETWEEN 1 AND 200),
  CONSTRAINT peer_counter_bookings_holder_length CHECK (char_length(holder) BETWEEN 1 AND 200),
  CONSTRAINT peer_counter_bookings_dates CHECK (check_out > check_in AND check_out - check_in <= 366),
  CONSTRAINT peer_counter_bookings_quantity CHECK (quantity >= 1),
  CONSTRAINT peer_counter_bookings_status CHECK (status IN ('held', 'confirmed', 'cancelled', 'expired')),
  CONSTRAINT peer_counter_bookings_hold_expiry CHECK (status <> 'held' OR expires_at IS NOT NULL)
);

-- The room-nights a hold still occupies: one row per night, gone once confirmed, cancelled or released.
CREATE TABLE IF NOT EXISTS peer_counter_holds (
  booking_id uuid NOT NULL REFERENCES peer_counter_bookings (id),
  item       text NOT NULL,
  night      date NOT NULL,
  quantity   integer NOT NULL CHECK (quantity >= 1),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (booking_id, night)
);
CREATE INDEX IF NOT EXISTS peer_counter_holds_by_night ON peer_counter_holds (item, night, expires_at);
CREATE INDEX IF NOT EXISTS peer_counter_holds_by_expiry ON peer_counter_holds (expires_at);
CREATE INDEX IF NOT EXISTS peer_counter_bookings_held ON peer_counter_bookings (expires_at) WHERE status = 'held';

CREATE OR REPLACE FUNCTION peer_counter_booking_json(b peer_counter_bookings) RETURNS json
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

-- Locks the existing night rows of [p_from, p_to) in date order (the one lock order of this
-- capability), then releases holds on those nights that expired by the database clock.
-- Returns how many hold rows were released.
CREATE OR REPLACE FUNCTION peer_counter_lock_nights(p_item text, p_from date, p_to date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_released integer;
BEGIN
  PERFORM 1 FROM peer_counter_nights
    WHERE item = p_item AND night >= p_from AND night < p_to
    ORDER BY night
    FOR UPDATE;
  WITH gone AS (
    DELETE FROM peer_counter_holds
     WHERE item = p_item AND night >= p_from AND night < p_to AND expires_at <= clock_timestamp()
    RETURNING night, quantity
  ), per_night AS (
    SELECT night, sum(quantity)::integer AS q, count(*)::integer AS n FROM gone GROUP BY night
  ), upd AS (
    UPDATE peer_counter_nights n SET held = n.held - p.q
      FROM per_night p
     WHERE n.item = p_item AND n.night = p.night
    RETURNING p.n
  )
  SELECT coalesce(sum(n), 0)::integer INTO v_released FROM upd;
  RETURN v_released;
END
$$;

-- Sets the capacity of every night in [p_from, p_to). All or nothing: if any night would end up
-- below what is booked + held there, nothing changes and the nights are returned.
-- Returns {"ok": true, "nights": [...]} or {"ok": false, "nights": [{date, capacity, booked, held}]}.
CREATE OR REPLACE FUNCTION peer_counter_set_stock(
  p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_short json;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM peer_counter_lock_nights(p_item, p_from, p_to);

  SELECT json_agg(json_build_object('date', to_char(night, 'YYYY-MM-DD'), 'capacity', capacity,
                                    'booked', booked, 'held', held) ORDER BY night)
    INTO v_short
    FROM peer_counter_nights
   WHERE item = p_item AND night >= p_from AND night < p_to AND booked + held > p_capacity;
  IF v_short IS NOT NULL THEN
    RETURN json_build_object('ok', false, 'nights', v_short);
  END IF;

  -- New nights are inserted in date order too; two writers of the same new night meet on the key.
  INSERT INTO peer_counter_nights (item, night, capacity)
  SELECT p_item, d::date, p_capacity
    FROM generate_series(p_from, p_to - 1, interval '1 day') d
   ORDER BY d
  ON CONFLICT (item, night) DO UPDATE SET capacity = excluded.capacity;

  RETURN json_build_object('ok', true, 'nights', peer_counter_availability(p_item, p_from, p_to));
END
$$;

-- Every night of [p_from, p_to), with or without stock: held counts only unexpired holds, so
-- available = capacity - booked - held always, and a night without stock is all zeros.
CREATE OR REPLACE FUNCTION peer_counter_availability(p_item text, p_from date, p_to date) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d, 'YYYY-MM-DD'),
           'capacity', coalesce(n.capacity, 0),
           'booked', coalesce(n.booked, 0),
           'held', coalesce(n.held, 0) - coalesce(x.expired, 0),
           'available', coalesce(n.capacity - n.booked - n.held + coalesce(x.expired, 0), 0))
         ORDER BY d), '[]'::json)
    FROM generate_series(p_from, p_to - 1, interval '1 day') d
    LEFT JOIN peer_counter_nights n ON n.item = p_item AND n.night = d::date
    LEFT JOIN LATERAL (
      SELECT sum(h.quantity)::integer AS expired FROM peer_counter_holds h
       WHERE h.item = p_item AND h.night = d::date AND h.expires_at <= now()
    ) x ON true
$$;

-- The whole booking decision in one statement, all or nothing.
-- Fast path: a guarded counter update per night, in date order
--   UPDATE … SET booked = booked + q WHERE night = d AND capacity - booked - held >= q
-- each of which locks that night's row; a night that fails the guard (or has no row) aborts the
-- subtransaction, which undoes the nights already taken and releases their locks. The hot night's
-- row lock is held from that UPDATE to commit, so the work after it is kept to two inserts.
-- Slow path (only when a guard failed): lock every night of the range in date order, release
-- expired holds there, and answer the short nights exactly; if releasing made room, take it.
-- p_hold_ms NULL → confirmed at once; otherwise held until clock_timestamp() + p_hold_ms.
-- Returns {"created": true, "booking": {...}} or {"created": false, "short": [{date, available}]}
-- (a night without stock is short with available 0).
CREATE OR REPLACE FUNCTION peer_counter_book(
  p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text,
  p_hold_ms integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_short json;
  v_row peer_counter_bookings;
  v_held boolean := p_hold_ms IS NOT NULL;
  v_night date;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      v_night := p_check_in;
      WHILE v_night < p_check_out LOOP
        UPDATE peer_counter_nights
           SET booked = booked + CASE WHEN v_held THEN 0 ELSE p_quantity END,
               held = held + CASE WHEN v_held THEN p_quantity ELSE 0 END
         WHERE item = p_item AND night = v_night AND capacity - booked - held >= p_quantity;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'peer_counter_short';
        END IF;
        v_night := v_night + 1;
      END LOOP;
      EXIT;
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'peer_counter_short' THEN RAISE; END IF;
    END;
    -- Nothing taken and no night locked here now: lock them all in date order and look closely.
    PERFORM peer_counter_lock_nights(p_item, p_check_in, p_check_out);
    SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'),
                                      'available', greatest(coalesce(n.capacity - n.booked - n.held, 0), 0)) ORDER BY d)
      INTO v_short
      FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d
      LEFT JOIN peer_counter_nights n ON n.item = p_item AND n.night = d::date
     WHERE n.night IS NULL OR n.capacity - n.booked - n.held < p_quantity;
    IF v_short IS NOT NULL OR attempt = 3 THEN
      RETURN json_build_object('created', false, 'short', coalesce(v_short, '[]'::json));
    END IF;
    -- Expired holds were released (or a cancel landed): the nights are ours now, take them.
  END LOOP;

  INSERT INTO peer_counter_bookings (item, holder, check_in, check_out, quantity, status, expires_at, confirmed_at)
  VALUES (p_item, p_holder, p_check_in, p_check_out, p_quantity,
          CASE WHEN v_held THEN 'held' ELSE 'confirmed' END,
          CASE WHEN v_held THEN clock_timestamp() + make_interval(secs => p_hold_ms / 1000.0) END,
          CASE WHEN v_held THEN NULL ELSE clock_timestamp() END)
  RETURNING * INTO v_row;
  IF v_held THEN
    INSERT INTO peer_counter_holds (booking_id, item, night, quantity, expires_at)
    SELECT v_row.id, p_item, d::date, p_quantity, v_row.expires_at
      FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d;
  END IF;
  RETURN json_build_object('created', true, 'booking', peer_counter_booking_json(v_row));
END
$$;

-- Confirms a hold. Never extends it: a hold whose expires_at has passed (database clock, read
-- after the nights are locked) is refused and its room-nights are released on the spot.
-- Returns {"result": "confirmed"|"not_found"|"expired"|"cancelled", "booking": {...}|null}.
-- Confirming a confirmed booking again answers "confirmed" (idempotent).
CREATE OR REPLACE FUNCTION peer_counter_confirm(p_item text, p_id uuid, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_row peer_counter_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM peer_counter_bookings WHERE id = p_id AND item = p_item;
  IF NOT FOUND THEN
    RETURN json_build_object('result', 'not_found', 'booking', NULL);
  END IF;
  IF v_row.status <> 'held' THEN
    RETURN json_build_object('result', v_row.status, 'booking', peer_counter_booking_json(v_row));
  END IF;

  -- Releases this hold's nights too if it has expired.
  PERFORM peer_counter_lock_nights(p_item, v_row.check_in, v_row.check_out);
  SELECT * INTO v_row FROM peer_counter_bookings WHERE id = p_id FOR UPDATE;
  IF v_row.status <> 'held' THEN
    RETURN json_build_object('result', v_row.status, 'booking', peer_counter_booking_json(v_row));
  END IF;
  IF v_row.expires_at <= clock_timestamp()
     OR (SELECT count(*) FROM peer_counter_holds WHERE booking_id = p_id) <> v_row.check_out - v_row.check_in THEN
    -- Expired between the release above and this check: release what is left of it now.
    WITH h AS (DELETE FROM peer_counter_holds WHERE booking_id = p_id RETURNING night, quantity)
    UPDATE peer_counter_nights n SET held = n.held - h.quantity
      FROM h WHERE n.item = p_item AND n.night = h.night;
    UPDATE peer_counter_bookings SET status = 'expired' WHERE id = p_id RETURNING * INTO v_row;
    RETURN json_build_object('result', 'expired', 'booking', peer_counter_booking_json(v_row));
  END IF;

  WITH h AS (DELETE FROM peer_counter_holds WHERE booking_id = p_id RETURNING night, quantity)
  UPDATE peer_counter_nights n SET held = n.held - h.quantity, booked = n.booked + h.quantity
    FROM h WHERE n.item = p_item AND n.night = h.night;
  UPDATE peer_counter_bookings SET status = 'confirmed', confirmed_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN json_build_object('result', 'confirmed', 'booking', peer_counter_booking_json(v_row));
END
$$;

-- Cancels a booking (held, expired or confirmed); its room-nights are free at once.
-- Returns the booking, or NULL when unknown. Cancelling again keeps the first cancelled_at.
CREATE OR REPLACE FUNCTION peer_counter_cancel(p_item text, p_id uuid, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_row peer_counter_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM peer_counter_bookings WHERE id = p_id AND item = p_item;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF v_row.status = 'cancelled' THEN
    RETURN peer_counter_booking_json(v_row);
  END IF;

  PERFORM peer_counter_lock_nights(p_item, v_row.check_in, v_row.check_out);
  SELECT * INTO v_row FROM peer_counter_bookings WHERE id = p_id FOR UPDATE;
  IF v_row.status = 'cancelled' THEN
    RETURN peer_counter_booking_json(v_row);
  END IF;
  IF v_row.status = 'confirmed' THEN
    UPDATE peer_counter_nights SET booked = booked - v_row.quantity
     WHERE item = p_item AND night >= v_row.check_in AND night < v_row.check_out;
  ELSE
    WITH h AS (DELETE FROM peer_counter_holds WHERE booking_id = p_id RETURNING night, quantity)
    UPDATE peer_counter_nights n SET held = n.held - h.quantity
      FROM h WHERE n.item = p_item AND n.night = h.night;
  END IF;
  UPDATE peer_counter_bookings SET status = 'cancelled', cancelled_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN peer_counter_booking_json(v_row);
END
$$;

CREATE OR REPLACE FUNCTION peer_counter_get_booking(p_item text, p_id uuid) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT peer_counter_booking_json(b) FROM peer_counter_bookings b WHERE b.id = p_id AND b.item = p_item
$$;

-- Cron housekeeping: releases expired holds in a bounded batch. Night rows are taken in
-- (item, night) order with SKIP LOCKED, so the sweeper never waits for (or deadlocks with) a
-- booking; a night it skips is released by the next booking there or the next sweep. Then marks
-- held bookings with nothing left to release as 'expired'. Returns rows changed.
CREATE OR REPLACE FUNCTION peer_counter_sweep() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_released integer;
  v_marked integer;
BEGIN
  WITH due AS (
    SELECT DISTINCT item, night FROM peer_counter_holds
     WHERE expires_at <= clock_timestamp()
     ORDER BY item, night
     LIMIT 10000
  ), locked AS (
    SELECT n.item, n.night FROM peer_counter_nights n JOIN due USING (item, night)
     ORDER BY n.item, n.night
       FOR UPDATE OF n SKIP LOCKED
  ), gone AS (
    DELETE FROM peer_counter_holds h USING locked l
     WHERE h.item = l.item AND h.night = l.night AND h.expires_at <= clock_timestamp()
    RETURNING h.item, h.night, h.quantity
  ), per_night AS (
    SELECT item, night, sum(quantity)::integer AS q, count(*)::integer AS n FROM gone GROUP BY item, night
  ), upd AS (
    UPDATE peer_counter_nights n SET held = n.held - p.q FROM per_night p
     WHERE n.item = p.item AND n.night = p.night
    RETURNING p.n
  )
  SELECT coalesce(sum(n), 0)::integer INTO v_released FROM upd;

  WITH done AS (
    SELECT b.id FROM peer_counter_bookings b
     WHERE b.status = 'held' AND b.expires_at <= clock_timestamp()
       AND NOT EXISTS (SELECT 1 FROM peer_counter_holds h WHERE h.booking_id = b.id)
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  )
  UPDATE peer_counter_bookings b SET status = 'expired' FROM done WHERE b.id = done.id;
  GET DIAGNOSTICS v_marked = ROW_COUNT;
  RETURN v_released + v_marked;
END
$$;
