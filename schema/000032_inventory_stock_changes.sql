-- Changing stock costs what the change is (issue 18, item 8).
--
-- 000030's set_stock locked every token of the range and found the surplus to drop with a
-- correlated count per token — quadratic in the rooms of a night: shrinking 3 nights of 5125 rooms
-- to 2565 took minutes' worth of index fetches (a 504 after 5 s) while creating them took 0.3 s. And
-- the per-call bound (nights × quantity) said nothing about how much a call changes: 10 000 → 0
-- over 366 nights passed it and deleted 3.66 million rows.
--
-- Now, night by night in date order under the nights' row locks (which serialise stock changes):
--  * the old capacity is the night's `capacity` (always its token count);
--  * growing inserts the new slots above the highest one (found on the (item, night, slot) index);
--  * shrinking locks exactly the surplus of free tokens (never taken, or lapsed holds), highest
--    slots first, SKIP LOCKED, and deletes them. Only if some night cannot give that many at once
--    (buyers hold tokens right now, or the rooms really are taken) does it roll that pass back and
--    wait, once, for the holders of the shrinking nights' free tokens — in (night, slot) order like
--    every other waiting lock on tokens — and then either drops the surplus or answers which nights
--    are short, exactly as before (nothing changed).
-- A call may change at most 100 000 room-nights (Σ over its nights of |new − old capacity|); a larger
-- change is refused before anything is written: {"ok": false, "too_large": true, "limit", "rooms_changed"}.

CREATE OR REPLACE FUNCTION admit_inventory_set_stock(
  p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;
