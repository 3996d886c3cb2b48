-- A batch's bookings alike — consecutive in arrival order, the same item, stay and quantity: a burst
-- on one night — are claimed and made together (issue 33: the inventory edge row, under 0.35x the
-- no-op, spent ~550-600 us of Postgres CPU per booking in batches).
--
-- 000107 decided every booking of a batch with admit_inventory_book: per booking a claim, an
-- exception block (a subtransaction), an INSERT and an UPDATE, each its own statement. Now a run of
-- n bookings alike claims n x quantity rooms per night at once (admit_inventory_claim: SKIP LOCKED,
-- from a random place, then lapsed holds; it never waits), and the first k of the run that those
-- rooms fill — k = the fewest whole bookings any night of the stay gives, at most n — are made by
-- one INSERT and one UPDATE, each taking `quantity` of the rooms of every night, in slot order, in
-- arrival order. What is left of the run (rooms came up short, or none were free) is decided one by
-- one by admit_inventory_book exactly as 000107 did, after the rooms the first k took: its exact
-- counts, its waits and its refusals are unchanged, and it waits 1 ms at most, since the run's claim
-- holds rooms (000107: nothing of a batch waits while it holds rooms, used or not). A run of one goes
-- to admit_inventory_book too.
--
-- Nothing else changes: a booking sees the rooms the earlier ones took, no room goes to two bookings
-- (each claimed token is assigned to one booking of the run, and only tokens this statement locked),
-- the answers are the ones admit_inventory_book gives, one per item in the order given. Rooms the
-- run claimed and did not use stay locked until the commit, free, and are the first the bookings
-- after them in this statement find (a transaction does not skip its own locks).
CREATE OR REPLACE FUNCTION admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;
