-- Inventory nights are pure dates, whatever the session's TimeZone (issue 18, item 5).
--
-- 000030 enumerated nights with generate_series(date, date, interval), which resolves to the
-- timestamptz variant: each date became local midnight in the session's TimeZone, and where a DST
-- change skips midnight (America/Santiago on 2024-09-08) a night was dropped — set_stock stocked one
-- night of two and book reported `short: null`. admit_nights() counts whole days on `date`, no time
-- zone involved; these four functions are 000030's with that series swapped in, nothing else changed.

-- The nights of [p_from, p_to), in order.
CREATE FUNCTION admit_nights(p_from date, p_to date) RETURNS SETOF date
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT p_from + i FROM generate_series(0, p_to - p_from - 1) i
$$;

CREATE OR REPLACE FUNCTION admit_inventory_availability(p_item text, p_from date, p_to date) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d, 'YYYY-MM-DD'),
           'capacity', coalesce(t.capacity, 0),
           'booked', coalesce(t.booked, 0),
           'held', coalesce(t.held, 0),
           'available', coalesce(t.capacity - t.booked - t.held, 0))
         ORDER BY d), '[]'::json)
    FROM admit_nights(p_from, p_to) d
    LEFT JOIN LATERAL (
      SELECT count(*)::integer AS capacity,
             count(*) FILTER (WHERE booking_id IS NOT NULL AND held_until IS NULL)::integer AS booked,
             count(*) FILTER (WHERE held_until > now())::integer AS held
        FROM inventory_tokens WHERE item = p_item AND night = d::date
    ) t ON true
$$;

CREATE OR REPLACE FUNCTION admit_inventory_set_stock(
  p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_short json;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- New nights: inserted in date order (two writers of the same new night meet on the key).
  INSERT INTO inventory_nights (item, night, capacity)
  SELECT p_item, d::date, 0 FROM admit_nights(p_from, p_to) d ORDER BY d
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
    FROM admit_nights(p_from, p_to) d
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

CREATE OR REPLACE FUNCTION admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
  v_more bigint[];
BEGIN
  SELECT coalesce(array_agg(t.id), '{}') INTO v_ids
    FROM admit_nights(p_check_in, p_check_out) d
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
      FROM admit_nights(p_check_in, p_check_out) d
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

CREATE OR REPLACE FUNCTION admit_inventory_book(
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
              FROM admit_nights(p_check_in, p_check_out) d) x
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
