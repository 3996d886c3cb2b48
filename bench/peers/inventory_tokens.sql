-- Seed 003's design, as a bench peer of schema/000030_inventory.sql (the per-night counter).
--
-- One token row per room-night; a booking claims `quantity` free tokens on every night with
-- SELECT … FOR UPDATE SKIP LOCKED, so buyers never wait for each other's row locks, and either
-- gets every night or nothing. Loadable into a migrated database next to the schema (its own
-- peer_tokens_* names, nothing shared); used by bench/inventory-designs.ts. Holds, confirm and
-- cancel are left out: the bench measures the claim on one hot night, and the counter's booking
-- call it is compared with is the confirmed path (p_hold_ms NULL) of admit_inventory_book().
--
-- The seed numbers free tokens with row_number() per night and takes the first
-- nights × quantity of them; Postgres refuses FOR UPDATE next to a window function, and a global
-- LIMIT over skipped rows can give one night too many and another too few, so this claims
-- per night (LATERAL … LIMIT quantity FOR UPDATE SKIP LOCKED), in date order, and checks the count.

CREATE TABLE IF NOT EXISTS peer_tokens_bookings (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  item       text NOT NULL,
  holder     text NOT NULL,
  check_in   date NOT NULL,
  check_out  date NOT NULL,
  quantity   integer NOT NULL CHECK (quantity >= 1),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (check_out > check_in)
);

CREATE TABLE IF NOT EXISTS peer_tokens (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item       text NOT NULL,
  night      date NOT NULL,
  slot       integer NOT NULL,
  booking_id uuid REFERENCES peer_tokens_bookings (id),
  UNIQUE (item, night, slot)
);
-- The free tokens of a night, in slot order: what every claim scans.
CREATE INDEX IF NOT EXISTS peer_tokens_free ON peer_tokens (item, night, slot) WHERE booking_id IS NULL;

-- Grows each night of [p_from, p_to) to p_capacity tokens (the bench only ever sets stock once).
CREATE OR REPLACE FUNCTION peer_tokens_set_stock(p_item text, p_from date, p_to date, p_capacity integer)
RETURNS integer
LANGUAGE sql AS $$
  WITH ins AS (
    INSERT INTO peer_tokens (item, night, slot)
    SELECT p_item, d::date, s
      FROM generate_series(p_from, p_to - 1, interval '1 day') d, generate_series(1, p_capacity) s
    ON CONFLICT (item, night, slot) DO NOTHING
    RETURNING 1
  )
  SELECT count(*)::integer FROM ins
$$;

-- Same answer shape as admit_inventory_book(): {"created": true, "booking": {"booking_id": …}} or
-- {"created": false, "short": [{date, available}]} where available is what this claim could get
-- (free tokens other buyers were not holding at that instant).
CREATE OR REPLACE FUNCTION peer_tokens_book(
  p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_nights integer := p_check_out - p_check_in;
  v_ids bigint[];
  v_short json;
  v_id uuid;
BEGIN
  WITH claim AS (
    SELECT t.id, d::date AS night
      FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d
     CROSS JOIN LATERAL (
       SELECT id FROM peer_tokens
        WHERE item = p_item AND night = d::date AND booking_id IS NULL
        ORDER BY slot
        LIMIT p_quantity
          FOR UPDATE SKIP LOCKED
     ) t
  )
  SELECT array_agg(id) INTO v_ids FROM claim;

  IF coalesce(cardinality(v_ids), 0) < v_nights * p_quantity THEN
    SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
      INTO v_short
      FROM (SELECT d, (SELECT count(*) FROM peer_tokens t WHERE t.id = ANY (coalesce(v_ids, '{}')) AND t.night = d::date)::integer AS got
              FROM generate_series(p_check_in, p_check_out - 1, interval '1 day') d) x
     WHERE got < p_quantity;
    RETURN json_build_object('created', false, 'short', v_short);
  END IF;

  INSERT INTO peer_tokens_bookings (item, holder, check_in, check_out, quantity)
  VALUES (p_item, p_holder, p_check_in, p_check_out, p_quantity)
  RETURNING id INTO v_id;
  UPDATE peer_tokens SET booking_id = v_id WHERE id = ANY (v_ids);
  RETURN json_build_object('created', true, 'booking', json_build_object('booking_id', v_id));
END
$$;
