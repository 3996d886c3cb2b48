-- Reservations and permit acquires (leases, semaphores) in flight together in one isolate, decided
-- in ONE statement (issue 33, part 2; functions/core/coalesce.ts gathers them; the rate-limit checks'
-- batch is 000101).
--
-- Each item is exactly what a request alone would have sent, decided by the function that decides it
-- alone (admit_reserve / admit_permit_acquire), one JSON answer per item in the order given.
--
-- Lock order: each of those functions takes ONE transaction-scoped advisory lock, its item's FNV-1a
-- lock key, before it reads or writes anything it decides on. A batch decides its items sorted by
-- that key (then arrival), so it takes its keys in ascending order and holds each to the end:
-- batches never deadlock with each other, and a single statement (one key) never closes a cycle.
-- Items of one key keep their arrival order, each seeing what the previous one wrote.
-- A lock wait past p_lock_timeout_ms (the shortest of the items' own), or any error, fails the whole
-- statement and applies nothing: the coalescer then sends each item again on its own.

CREATE FUNCTION admit_reserve_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  it record;
BEGIN
  FOR it IN
    SELECT t.e, t.i::integer AS i
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, i)
     ORDER BY (t.e ->> 'key')::bigint, t.i
  LOOP
    v_res[it.i] := admit_reserve((it.e ->> 'key')::bigint, it.e ->> 'resource', it.e ->> 'holder', (it.e ->> 'start')::timestamptz,
                                 (it.e ->> 'end')::timestamptz, it.e -> 'metadata', p_lock_timeout_ms);
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;

CREATE FUNCTION admit_permit_acquire_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  it record;
BEGIN
  FOR it IN
    SELECT t.e, t.i::integer AS i
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, i)
     ORDER BY (t.e ->> 'key')::bigint, t.i
  LOOP
    v_res[it.i] := admit_permit_acquire((it.e ->> 'key')::bigint, it.e ->> 'kind', it.e ->> 'name', it.e ->> 'holder',
                                        (it.e ->> 'ttl_ms')::integer, p_lock_timeout_ms);
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;
