-- A batch of bookings never waits for rooms while it holds rooms (a deadlock seen in CI: issue 33's
-- batches broke 000030's lock order).
--
-- 000030's rule was that whoever waits for tokens holds none, or takes them in (night, slot) order:
-- a buyer alone waits (for the holders of a short night's free tokens) only after its claim was
-- rolled back. In 000106's batch, a booking that comes up short waits while the bookings before it
-- in the same statement hold the rooms they took, in any order. A stock change lowering two nights
-- locks their free rooms in (night, slot) order; a batch that took the second night's last room and
-- then waits for the first night's closes a cycle, and after deadlock_timeout Postgres refuses one
-- of them — the stock change answered 409 concurrent-conflict where it should have succeeded
-- (test/inventory/inventory.concurrency.test.ts, once in CI; inventory.coalesce.test.ts reproduces it
-- every time).
--
-- Now a booking of a batch that follows a booking the statement made waits for no lock: its lock
-- timeout is 1 ms (0 would mean none), so a lock it cannot have at once fails the statement with
-- 55P03, nothing is applied, and the coalescer sends each booking again as a statement of its own
-- (functions/core/coalesce.ts, as for any lock wait), where it holds nothing when it waits. A cycle
-- through a batch can last at most that millisecond, never the deadlock_timeout it takes Postgres to
-- break one. Until a booking of the batch is made, its items wait as they would alone (they hold
-- nothing: a refused booking's claims were rolled back). Under a sold-out burst the refusals still
-- come in the batch: a night with no free room has nothing to wait for.
CREATE OR REPLACE FUNCTION admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := '{}';
  v_r json;
  v_holding boolean := false;
  e jsonb;
BEGIN
  FOR e IN SELECT t.x FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(x, i) ORDER BY t.i LOOP
    v_r := admit_inventory_book(e ->> 'item', (e ->> 'check_in')::date, (e ->> 'check_out')::date, (e ->> 'quantity')::integer,
                                e ->> 'holder', (e ->> 'hold_ms')::integer, CASE WHEN v_holding THEN 1 ELSE p_lock_timeout_ms END);
    v_holding := v_holding OR (v_r ->> 'created')::boolean;
    v_res := v_res || v_r;
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;
