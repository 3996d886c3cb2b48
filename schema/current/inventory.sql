-- GENERATED FILE: DO NOT EDIT.
--
-- The inventory part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE inventory_bookings (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  item text NOT NULL,
  holder text NOT NULL,
  check_in date NOT NULL,
  check_out date NOT NULL,
  quantity integer NOT NULL,
  status text NOT NULL,
  expires_at timestamp with time zone,
  created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
  confirmed_at timestamp with time zone,
  cancelled_at timestamp with time zone,
  CONSTRAINT inventory_bookings_pkey PRIMARY KEY (id),
  CONSTRAINT inventory_bookings_dates CHECK (((check_out > check_in) AND ((check_out - check_in) <= 366))),
  CONSTRAINT inventory_bookings_hold_expiry CHECK (((status <> 'held'::text) OR (expires_at IS NOT NULL))),
  CONSTRAINT inventory_bookings_holder_length CHECK (((char_length(holder) >= 1) AND (char_length(holder) <= 200))),
  CONSTRAINT inventory_bookings_item_length CHECK (((char_length(item) >= 1) AND (char_length(item) <= 200))),
  CONSTRAINT inventory_bookings_quantity CHECK ((quantity >= 1)),
  CONSTRAINT inventory_bookings_status CHECK ((status = ANY (ARRAY['held'::text, 'confirmed'::text, 'cancelled'::text, 'expired'::text])))
);
COMMENT ON TABLE inventory_bookings IS 'Holds and bookings of rooms over [check_in, check_out): held until expires_at, then confirmed, cancelled or expired.';
CREATE INDEX inventory_bookings_by_check_out ON public.inventory_bookings USING btree (check_out);
CREATE INDEX inventory_bookings_held ON public.inventory_bookings USING btree (expires_at) WHERE (status = 'held'::text);

CREATE TABLE inventory_nights (
  item text NOT NULL,
  night date NOT NULL,
  capacity integer NOT NULL,
  CONSTRAINT inventory_nights_pkey PRIMARY KEY (item, night),
  CONSTRAINT inventory_nights_capacity_check CHECK ((capacity >= 0)),
  CONSTRAINT inventory_nights_item_length CHECK (((char_length(item) >= 1) AND (char_length(item) <= 200)))
);
COMMENT ON TABLE inventory_nights IS 'Each item''s capacity per night.';
CREATE INDEX inventory_nights_by_night ON public.inventory_nights USING btree (night);

CREATE TABLE inventory_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  item text NOT NULL,
  night date NOT NULL,
  slot integer NOT NULL,
  booking_id uuid,
  held_until timestamp with time zone,
  CONSTRAINT inventory_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT inventory_tokens_slot UNIQUE (item, night, slot),
  CONSTRAINT inventory_tokens_booking_id_fkey FOREIGN KEY (booking_id) REFERENCES inventory_bookings(id),
  CONSTRAINT inventory_tokens_item_night_fkey FOREIGN KEY (item, night) REFERENCES inventory_nights(item, night),
  CONSTRAINT inventory_tokens_hold_has_booking CHECK (((held_until IS NULL) OR (booking_id IS NOT NULL)))
);
COMMENT ON TABLE inventory_tokens IS 'One row per room-night (slots 1..capacity): a booking claims tokens with SKIP LOCKED, so buyers of one night commit side by side and nothing is oversold.';
CREATE INDEX inventory_tokens_booking ON public.inventory_tokens USING btree (booking_id) WHERE (booking_id IS NOT NULL);
CREATE INDEX inventory_tokens_expiry ON public.inventory_tokens USING btree (held_until) WHERE (held_until IS NOT NULL);
CREATE INDEX inventory_tokens_free ON public.inventory_tokens USING btree (item, night, slot) WHERE (booking_id IS NULL);
CREATE INDEX inventory_tokens_held ON public.inventory_tokens USING btree (item, night, held_until) WHERE (held_until IS NOT NULL);

-- Functions

CREATE OR REPLACE FUNCTION public.admit_inventory_availability(p_item text, p_from date, p_to date)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_inventory_availability(p_item text, p_from date, p_to date) IS 'Free rooms per night of an item over [p_from, p_to).';

CREATE OR REPLACE FUNCTION public.admit_inventory_book(p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text, p_hold_ms integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
    -- The nights this claim came up short on (what it got there is no count: others held rooms).
    SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
      INTO v_short
      FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date)::integer AS got
              FROM admit_nights(p_check_in, p_check_out) d) x
     WHERE got < p_quantity;
    -- Wait for whoever holds free tokens of those nights, count them, let go.
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
    -- Three claims met rooms that were free but locked: take them waiting instead of skipping.
    BEGIN
      v_ids := admit_inventory_claim_waiting(p_item, p_check_in, p_check_out, p_quantity);
      IF cardinality(v_ids) < v_need THEN
        SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
          INTO v_exact
          FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date)::integer AS got
                  FROM admit_nights(p_check_in, p_check_out) d) x
         WHERE got < p_quantity;
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_short';
      END IF;
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_short' THEN RAISE; END IF;
      RETURN json_build_object('created', false, 'short', v_exact);
    END;
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
$function$;
COMMENT ON FUNCTION admit_inventory_book(p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text, p_hold_ms integer, p_lock_timeout_ms integer) IS 'Decides one booking or hold: claims p_quantity tokens on every night of the stay, or refuses naming the nights that are really short.';

CREATE OR REPLACE FUNCTION public.admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_items jsonb[];
  v_res json[] := '{}';
  v_r json;
  v_holding boolean := false;
  v_n integer;
  v_i integer := 1;
  v_j integer;
  v_k integer;
  e jsonb;
  v_item text;
  v_in date;
  v_out date;
  v_q integer;
  v_ids bigint[];
  v_made json[];
BEGIN
  SELECT array_agg(t.x ORDER BY t.i) INTO v_items FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, i);
  v_n := coalesce(cardinality(v_items), 0);
  WHILE v_i <= v_n LOOP
    e := v_items[v_i];
    v_item := e ->> 'item';
    v_in := (e ->> 'check_in')::date;
    v_out := (e ->> 'check_out')::date;
    v_q := (e ->> 'quantity')::integer;
    -- The run: this booking and the ones right after it that book the same item, stay and quantity.
    v_j := v_i;
    WHILE v_j < v_n
      AND v_items[v_j + 1] ->> 'item' = v_item
      AND (v_items[v_j + 1] ->> 'check_in')::date = v_in
      AND (v_items[v_j + 1] ->> 'check_out')::date = v_out
      AND (v_items[v_j + 1] ->> 'quantity')::integer = v_q LOOP
      v_j := v_j + 1;
    END LOOP;
    v_k := 0;
    IF v_j > v_i AND v_q >= 1 AND v_out > v_in THEN
      v_ids := admit_inventory_claim(v_item, v_in, v_out, (v_j - v_i + 1) * v_q);
      -- Rooms locked (used or not): from here on a booking of this statement waits for no lock (000107).
      v_holding := v_holding OR cardinality(v_ids) > 0;
      SELECT least(v_j - v_i + 1, min(x.c / v_q))::integer INTO v_k
        FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date) AS c
                FROM admit_nights(v_in, v_out) d) x;
      v_k := coalesce(v_k, 0);
      IF v_k > 0 THEN
        WITH src AS (
          SELECT gen_random_uuid() AS id, u.o, (u.x ->> 'hold_ms')::integer AS hold_ms, u.x ->> 'holder' AS holder
            FROM unnest(v_items[v_i : v_i + v_k - 1]) WITH ORDINALITY AS u(x, o)
        ), made AS (
          INSERT INTO inventory_bookings (id, item, holder, check_in, check_out, quantity, status, expires_at, confirmed_at)
          SELECT s.id, v_item, s.holder, v_in, v_out, v_q,
                 CASE WHEN s.hold_ms IS NULL THEN 'confirmed' ELSE 'held' END,
                 CASE WHEN s.hold_ms IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => s.hold_ms / 1000.0) END,
                 CASE WHEN s.hold_ms IS NULL THEN clock_timestamp() END
            FROM src s ORDER BY s.o
          RETURNING *
        ), rooms AS (
          -- Each night's claimed rooms in slot order: the first `quantity` to the run's first booking, and so on.
          SELECT t.id, (row_number() OVER (PARTITION BY t.night ORDER BY t.slot) - 1) / v_q + 1 AS o
            FROM inventory_tokens t WHERE t.id = ANY (v_ids)
        ), taken AS (
          UPDATE inventory_tokens t SET booking_id = m.id, held_until = m.expires_at
            FROM rooms r JOIN src s ON s.o = r.o JOIN made m ON m.id = s.id
           WHERE t.id = r.id
        )
        SELECT array_agg(json_build_object('created', true, 'booking', admit_inventory_booking_json(m::inventory_bookings)) ORDER BY s.o) INTO v_made
          FROM made m JOIN src s ON s.id = m.id;
        v_res := v_res || v_made;
      END IF;
    END IF;
    -- The rest of the run (all of a run of one), one by one as 000107 decides them.
    FOR v_x IN v_i + v_k .. v_j LOOP
      e := v_items[v_x];
      v_r := admit_inventory_book(e ->> 'item', (e ->> 'check_in')::date, (e ->> 'check_out')::date, (e ->> 'quantity')::integer,
                                  e ->> 'holder', (e ->> 'hold_ms')::integer, CASE WHEN v_holding THEN 1 ELSE p_lock_timeout_ms END);
      v_holding := v_holding OR (v_r ->> 'created')::boolean;
      v_res := v_res || v_r;
    END LOOP;
    v_i := v_j + 1;
  END LOOP;
  RETURN array_to_json(v_res);
END
$function$;
COMMENT ON FUNCTION admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer) IS 'Decides several bookings in one statement, each as admit_inventory_book alone would; alike bookings of one night are claimed together.';

CREATE OR REPLACE FUNCTION public.admit_inventory_booking_json(b inventory_bookings)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_inventory_booking_json(b inventory_bookings) IS 'A booking''s public shape.';

CREATE OR REPLACE FUNCTION public.admit_inventory_cancel(p_item text, p_id uuid, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_inventory_cancel(p_item text, p_id uuid, p_lock_timeout_ms integer) IS 'Cancels a booking or hold; its tokens are free at once.';

CREATE OR REPLACE FUNCTION public.admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer)
 RETURNS bigint[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids bigint[];
  v_more bigint[];
  v_need integer := (p_check_out - p_check_in) * p_quantity;
  -- Where in each night's slots this claim starts: above floor(v_at * capacity).
  v_at double precision := random();
BEGIN
  -- Free tokens above the starting place (an integer bound, so the index range starts there).
  SELECT coalesce(array_agg(t.id), '{}') INTO v_ids
    FROM admit_nights(p_check_in, p_check_out) d
    LEFT JOIN inventory_nights n ON n.item = p_item AND n.night = d
   CROSS JOIN LATERAL (
     SELECT id FROM inventory_tokens
      WHERE item = p_item AND night = d AND booking_id IS NULL
        AND slot > floor(v_at * coalesce(n.capacity, 0))::integer
      ORDER BY slot LIMIT p_quantity
        FOR UPDATE SKIP LOCKED
   ) t;
  -- The nights that came up short there: free tokens from slot 1 up to the starting place.
  IF cardinality(v_ids) < v_need THEN
    WITH got AS (
      SELECT night, count(*)::integer AS k FROM inventory_tokens WHERE id = ANY (v_ids) GROUP BY night
    )
    SELECT coalesce(array_agg(t.id), '{}') INTO v_more
      FROM admit_nights(p_check_in, p_check_out) d
      LEFT JOIN inventory_nights n ON n.item = p_item AND n.night = d
      LEFT JOIN got ON got.night = d
     CROSS JOIN LATERAL (
       SELECT id FROM inventory_tokens
        WHERE item = p_item AND night = d AND booking_id IS NULL
          AND slot <= floor(v_at * coalesce(n.capacity, 0))::integer
        ORDER BY slot LIMIT p_quantity - coalesce(got.k, 0)
          FOR UPDATE SKIP LOCKED
     ) t
     WHERE coalesce(got.k, 0) < p_quantity;
    v_ids := v_ids || v_more;
  END IF;
  -- Still short: lapsed holds, oldest first (as 000031).
  IF cardinality(v_ids) < v_need THEN
    WITH got AS (
      SELECT night, count(*)::integer AS k FROM inventory_tokens WHERE id = ANY (v_ids) GROUP BY night
    )
    SELECT coalesce(array_agg(t.id), '{}') INTO v_more
      FROM admit_nights(p_check_in, p_check_out) d
      LEFT JOIN got ON got.night = d
     CROSS JOIN LATERAL (
       SELECT id FROM inventory_tokens
        WHERE item = p_item AND night = d AND held_until <= clock_timestamp()
        ORDER BY held_until LIMIT p_quantity - coalesce(got.k, 0)
          FOR UPDATE SKIP LOCKED
     ) t
     WHERE coalesce(got.k, 0) < p_quantity;
    v_ids := v_ids || v_more;
  END IF;
  RETURN v_ids;
END
$function$;
COMMENT ON FUNCTION admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer) IS 'Claims free tokens of a stay without waiting (SKIP LOCKED), reading a few index pages however much of the night is sold.';

CREATE OR REPLACE FUNCTION public.admit_inventory_claim_waiting(p_item text, p_check_in date, p_check_out date, p_quantity integer)
 RETURNS bigint[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids bigint[] := '{}';
  v_night date;
BEGIN
  FOR v_night IN SELECT d FROM admit_nights(p_check_in, p_check_out) d LOOP
    v_ids := v_ids || ARRAY(
      SELECT id FROM inventory_tokens
       WHERE item = p_item AND night = v_night AND (booking_id IS NULL OR held_until <= clock_timestamp())
       ORDER BY slot LIMIT p_quantity
         FOR UPDATE);
  END LOOP;
  RETURN v_ids;
END
$function$;
COMMENT ON FUNCTION admit_inventory_claim_waiting(p_item text, p_check_in date, p_check_out date, p_quantity integer) IS 'Claims free tokens of a stay, waiting for tokens other transactions hold, so a refusal is exact.';

CREATE OR REPLACE FUNCTION public.admit_inventory_confirm(p_item text, p_id uuid, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_inventory_confirm(p_item text, p_id uuid, p_lock_timeout_ms integer) IS 'Confirms a hold that has not lapsed (database clock, after its tokens are locked); a lapsed hold is refused and released.';

CREATE OR REPLACE FUNCTION public.admit_inventory_get_booking(p_item text, p_id uuid)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_inventory_booking_json(b) FROM inventory_bookings b WHERE b.id = p_id AND b.item = p_item
$function$;
COMMENT ON FUNCTION admit_inventory_get_booking(p_item text, p_id uuid) IS 'One booking of an item by id, or NULL.';

CREATE OR REPLACE FUNCTION public.admit_inventory_release(p_id uuid)
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH mine AS (
    SELECT id FROM inventory_tokens WHERE booking_id = p_id ORDER BY night, slot FOR UPDATE
  ), freed AS (
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL
      FROM mine WHERE t.id = mine.id AND t.booking_id = p_id
    RETURNING 1
  )
  SELECT count(*)::integer FROM freed
$function$;
COMMENT ON FUNCTION admit_inventory_release(p_id uuid) IS 'Releases the tokens a booking still owns, in (night, slot) order.';

CREATE OR REPLACE FUNCTION public.admit_inventory_set_stock(p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  c_limit constant bigint := 100000;
  v_change bigint;
  v_short json;
  v_waited boolean := false;
  v_night record;
  v_ids bigint[];
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- The size of the change, before anything is written (a concurrent change of the same nights
  -- can move it by at most its own bounded size).
  SELECT coalesce(sum(abs(p_capacity - coalesce(n.capacity, 0))), 0) INTO v_change
    FROM generate_series(0, p_to - p_from - 1) i
    LEFT JOIN inventory_nights n ON n.item = p_item AND n.night = p_from + i;
  IF v_change > c_limit THEN
    RETURN json_build_object('ok', false, 'too_large', true, 'limit', c_limit, 'rooms_changed', v_change);
  END IF;

  -- New nights: inserted in date order (two writers of the same new night meet on the key).
  INSERT INTO inventory_nights (item, night, capacity)
  SELECT p_item, p_from + i, 0 FROM generate_series(0, p_to - p_from - 1) i ORDER BY i
  ON CONFLICT (item, night) DO NOTHING;
  PERFORM 1 FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to ORDER BY night FOR UPDATE;

  -- Shrink, fast pass: take exactly the surplus of free tokens nobody holds; all nights or none.
  BEGIN
    FOR v_night IN SELECT night, capacity FROM inventory_nights
              WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity
              ORDER BY night
    LOOP
      v_ids := ARRAY(
        SELECT id FROM inventory_tokens
         WHERE item = p_item AND night = v_night.night AND (booking_id IS NULL OR held_until <= clock_timestamp())
         ORDER BY slot DESC LIMIT v_night.capacity - p_capacity
           FOR UPDATE SKIP LOCKED);
      IF cardinality(v_ids) < v_night.capacity - p_capacity THEN
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_stock_wait';
      END IF;
      DELETE FROM inventory_tokens WHERE id = ANY (v_ids);
    END LOOP;
  EXCEPTION WHEN raise_exception THEN
    IF SQLERRM <> 'admit_stock_wait' THEN RAISE; END IF;
    v_waited := true;
  END;

  IF v_waited THEN
    -- Slow pass: wait for whoever holds free tokens of the shrinking nights (a buyer about to take
    -- or give up one), in (night, slot) order; afterwards every free token there is ours.
    PERFORM 1 FROM inventory_tokens
     WHERE item = p_item AND night >= p_from AND night < p_to
       AND night IN (SELECT night FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity)
       AND (booking_id IS NULL OR held_until <= clock_timestamp())
     ORDER BY night, slot
       FOR UPDATE;
    SELECT json_agg(json_build_object('date', to_char(night, 'YYYY-MM-DD'), 'capacity', capacity,
                                      'booked', booked, 'held', held) ORDER BY night)
      INTO v_short
      FROM (SELECT t.night, count(*)::integer AS capacity,
                   count(*) FILTER (WHERE t.booking_id IS NOT NULL AND t.held_until IS NULL)::integer AS booked,
                   count(*) FILTER (WHERE t.held_until > clock_timestamp())::integer AS held
              FROM inventory_tokens t
             WHERE t.item = p_item AND t.night >= p_from AND t.night < p_to
               AND t.night IN (SELECT night FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity)
             GROUP BY t.night) x
     WHERE booked + held > p_capacity;
    IF v_short IS NOT NULL THEN
      RETURN json_build_object('ok', false, 'nights', v_short);
    END IF;
    FOR v_night IN SELECT night, capacity FROM inventory_nights
              WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity
              ORDER BY night
    LOOP
      -- The free tokens are ours now but for any freed since (a cancel); a buyer may take one of
      -- those first, which this FOR UPDATE re-checks. Short after all → a retryable conflict.
      v_ids := ARRAY(
        SELECT id FROM inventory_tokens
         WHERE item = p_item AND night = v_night.night AND (booking_id IS NULL OR held_until <= clock_timestamp())
         ORDER BY slot DESC LIMIT v_night.capacity - p_capacity
           FOR UPDATE);
      IF cardinality(v_ids) < v_night.capacity - p_capacity THEN
        RAISE EXCEPTION 'rooms of % on % were taken while its stock was being lowered; retry', p_item, v_night.night USING ERRCODE = '40001';
      END IF;
      DELETE FROM inventory_tokens WHERE id = ANY (v_ids);
    END LOOP;
  END IF;

  -- Grow: the new slots above the highest one of each night.
  INSERT INTO inventory_tokens (item, night, slot)
  SELECT p_item, n.night, s
    FROM inventory_nights n
   CROSS JOIN LATERAL (SELECT coalesce(max(t.slot), 0) AS top FROM inventory_tokens t WHERE t.item = p_item AND t.night = n.night) h
   CROSS JOIN LATERAL generate_series(h.top + 1, h.top + p_capacity - n.capacity) s
   WHERE n.item = p_item AND n.night >= p_from AND n.night < p_to AND n.capacity < p_capacity
   ORDER BY n.night, s;
  UPDATE inventory_nights SET capacity = p_capacity
   WHERE item = p_item AND night >= p_from AND night < p_to AND capacity <> p_capacity;

  RETURN json_build_object('ok', true, 'nights', admit_inventory_availability(p_item, p_from, p_to));
END
$function$;
COMMENT ON FUNCTION admit_inventory_set_stock(p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer) IS 'Sets an item''s capacity over a range of nights; never takes a room from a booking.';

CREATE OR REPLACE FUNCTION public.admit_nights(p_from date, p_to date)
 RETURNS SETOF date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT p_from + i FROM generate_series(0, p_to - p_from - 1) i
$function$;
COMMENT ON FUNCTION admit_nights(p_from date, p_to date) IS 'The nights of [p_from, p_to), in order.';

CREATE OR REPLACE FUNCTION public.admit_sweep_inventory()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_released integer;
  v_marked integer;
BEGIN
  EXECUTE $q$
    WITH due AS (
      SELECT id FROM inventory_tokens
       WHERE held_until <= clock_timestamp()
       ORDER BY held_until
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL FROM due WHERE t.id = due.id
  $q$;
  GET DIAGNOSTICS v_released = ROW_COUNT;

  EXECUTE $q$
    WITH done AS (
      SELECT id FROM inventory_bookings
       WHERE status = 'held' AND expires_at <= clock_timestamp()
       ORDER BY expires_at
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_bookings b SET status = 'expired' FROM done WHERE b.id = done.id
  $q$;
  GET DIAGNOSTICS v_marked = ROW_COUNT;
  RETURN v_released + v_marked;
END
$function$;
COMMENT ON FUNCTION admit_sweep_inventory() IS 'Sweeper: hands lapsed holds'' tokens back and marks them expired, a bounded batch, never waiting.';

CREATE OR REPLACE FUNCTION public.admit_sweep_inventory_history()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_cutoff date := (now() AT TIME ZONE 'UTC')::date - 30;
  v_tokens integer;
  v_bookings integer;
  v_nights integer;
BEGIN
  EXECUTE $q$
    WITH old AS (
      SELECT t.id
        FROM (SELECT item, night FROM inventory_nights WHERE night < $1 ORDER BY night LIMIT 1000) n
        JOIN inventory_tokens t ON t.item = n.item AND t.night = n.night
       LIMIT 10000
         FOR UPDATE OF t SKIP LOCKED
    )
    DELETE FROM inventory_tokens t USING old WHERE t.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_tokens = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT b.id FROM inventory_bookings b
       WHERE b.check_out < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.booking_id = b.id)
       ORDER BY b.check_out
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_bookings b USING old WHERE b.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_bookings = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT n.item, n.night FROM inventory_nights n
       WHERE n.night < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night)
       ORDER BY n.night
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_nights n USING old WHERE n.item = old.item AND n.night = old.night
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_nights = ROW_COUNT;

  RETURN v_tokens + v_bookings + v_nights;
END
$function$;
COMMENT ON FUNCTION admit_sweep_inventory_history() IS 'Sweeper: deletes tokens, bookings and nights long past, a bounded batch, never waiting.';
