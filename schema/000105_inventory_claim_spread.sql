-- A booking's claim no longer grows with the rooms already sold on its night (issue 33, part 1:
-- the inventory edge row was the one under 0.35x the no-op).
--
-- 000031's claim took the lowest free slots: `WHERE booking_id IS NULL ORDER BY slot LIMIT q` on
-- the partial index inventory_tokens_free. A token taken by a booking is updated, and the index keeps
-- the entry of its free version until VACUUM; so every claim walked, from slot 1, past the entries of
-- every room already sold on that night (killed entries are skipped without a heap visit, but their
-- index pages are still read), and past the rooms simultaneous buyers had just locked. Measured on
-- one night of 20 000 rooms, 20 bookings in a row (pg_stat_get_xact_blocks_fetched on the index):
-- 2 index pages per booking with nothing sold, 21 with 5 000 sold, 40 with 10 000; and pgbench
-- (16 clients, one-room bookings of one night of 40 000 rooms, 12 s) fell from 1 684 to 736
-- bookings/s as the night filled, 1 121 in all.
--
-- Now each claim starts at a random place in the night's slots (the same fraction of every night of
-- the booking), takes the first free slots from there up, and only if that part of the night comes
-- up short, the first free ones from slot 1: every free token is still reachable, in one direction,
-- with SKIP LOCKED, so nothing about waiting, lock order or exactness changes (buyers that skip never
-- wait; every waiting lock on tokens is still taken in (night, slot) order). Sold rooms end up spread
-- over the night, so a claim passes ~1/(share free) entries instead of every sold room, and
-- simultaneous buyers rarely meet on the same token. The same pgbench: flat at ~2 000-3 300
-- bookings/s; test/inventory/inventory.claim-cost.test.ts counts the index pages.
CREATE OR REPLACE FUNCTION admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
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
$$;
