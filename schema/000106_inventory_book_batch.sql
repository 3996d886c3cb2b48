-- Bookings in flight together in one isolate, decided in ONE statement (issue 33; the reservations'
-- and acquires' batches are 000102, functions/core/coalesce.ts gathers them, functions/inventory/sql.ts
-- sends them).
--
-- Each item is exactly what a request alone would have sent, decided by the function that decides it
-- alone (admit_inventory_book), in arrival order, one JSON answer per item in the order given; a
-- booking sees the rooms the earlier items of its batch took.
--
-- Locks: a booking's claim skips locked tokens and never waits; only a claim that came up short waits,
-- in (night, slot) order, for the holders of the free tokens of its short nights. Alone it holds
-- nothing then; in a batch it holds the tokens the earlier items booked, so two batches waiting for
-- each other's tokens can deadlock. Postgres then refuses one of them (40P01) and, like a lock wait
-- past p_lock_timeout_ms (the shortest of the items' own) or any other error, that fails the whole
-- statement and applies nothing: the coalescer sends each item again on its own, where no booking
-- waits while holding tokens. Each booking's claim is a subtransaction with an xid of its own, and
-- Postgres keeps at most 64 per backend in shared memory before other backends' snapshots must look
-- them up in pg_subtrans: the coalescer sends at most 16 bookings at once (functions/inventory/sql.ts).
CREATE FUNCTION admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := '{}';
  e jsonb;
BEGIN
  FOR e IN SELECT t.x FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, i) ORDER BY t.i LOOP
    v_res := v_res || admit_inventory_book(e ->> 'item', (e ->> 'check_in')::date, (e ->> 'check_out')::date, (e ->> 'quantity')::integer,
                                           e ->> 'holder', (e ->> 'hold_ms')::integer, p_lock_timeout_ms);
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;
