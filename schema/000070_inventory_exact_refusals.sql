-- A 409 inventory-short is a real shortage, never contention (issue 28, item 1).
--
-- 000030's admit_inventory_book claims with SKIP LOCKED and, when a night comes up short, waits for
-- the holders of the short nights' free tokens and counts them exactly; rooms that were only locked
-- by buyers about to give up mean "claim again". But after its third claim it answered with what
-- that claim could get under SKIP LOCKED — rooms locked for a moment by buyers who were then refused
-- counted as taken. A buyer of the only room of a night, against twelve others refused on it, got
-- 34 false refusals (`available: 0`, the room free) in 5 000 bookings
-- (test/inventory/inventory.false-short.test.ts).
--
-- Now every refusal comes from a count that waited for in-flight buyers:
--  * each of the three fast claims that comes up short is followed by the exact count (as before);
--  * when the exact count said "free" three times and the claims still met locked rooms, the buyer
--    stops skipping: admit_inventory_claim_waiting() locks the free tokens it needs night by night
--    in (night, slot) order, waiting for whoever holds them (a buyer that gives up or commits), as
--    every other waiting lock on tokens does, so it joins no wait cycle. It gets the rooms, or a
--    night gives fewer — then that count is exact (every free token of that night was waited for)
--    and is the 409. A wait longer than lock_timeout is the 503 lock-timeout, never a refusal.

-- Locks up to p_quantity free tokens (never taken, or lapsed holds) on every night of
-- [p_check_in, p_check_out), in (night, slot) order, waiting for tokens other transactions hold; a
-- token taken meanwhile is re-checked and passed over. Returns their ids; fewer on a night means
-- that night has no more free rooms.
CREATE FUNCTION admit_inventory_claim_waiting(p_item text, p_check_in date, p_check_out date, p_quantity integer)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
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
$$;
