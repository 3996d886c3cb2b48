-- Rate limits: the checks one isolate has in flight at once, decided in ONE statement (issue 33,
-- part 2; functions/core/coalesce.ts gathers them, functions/ratelimits/sql.ts sends them).
--
-- Each item is exactly what a request alone would have sent: {"p": policy} or {"ps": [policies]}
-- (all-or-nothing), "k" key, "c" cost, "i" log info (absent: none). Each is decided by the function
-- that decides it alone (admit_ratelimit_check / admit_ratelimit_check_multi), so a batch answers
-- each decision exactly as a statement of its own would have, in the same transaction-time instant;
-- the answer is a JSON array, one element per item in the order given (NULL: no such policy, as the
-- single check answers; {"missing": …} for a multi-policy item, as the multi-policy check answers).
--
-- Lock order, so that batches never deadlock with each other or with single statements:
-- 1. The batch's policy rows, FOR KEY SHARE, in name order (COLLATE "C"), before any counter row.
--    A policy DELETE locks its row and then deletes its counters (ON DELETE CASCADE). Without this,
--    a batch holding the counter of (k1, p) and inserting (k2, p) would wait for p's row (the
--    foreign key's KEY SHARE) while the DELETE waits for (k1, p). KEY SHARE does not conflict with
--    a check's own foreign-key lock or with a policy PUT's update of a non-key column.
-- 2. The counter rows in (key, policy) order, COLLATE "C": the items sorted by key, then policy,
--    then arrival. A single-policy check locks one row; a multi-policy check locks the rows of one
--    key in policy-name order (admit_ratelimit_check_multi): both are consistent with this order.
--    A multi-policy item never shares its key with another item of the batch (the coalescer holds
--    such an item for the next batch), so no item's rows interleave with another's.
-- Items of the same counter row keep their arrival order: each sees the row as the previous one left it.
--
-- A lock wait past p_lock_timeout_ms (the shortest of the items' own) fails the whole statement:
-- nothing is applied and the coalescer sends each item again in a statement of its own, under its
-- own budget, so a slow key answers for its own decisions only.

CREATE FUNCTION admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  it record;
  v_set text;
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  PERFORM 1
     FROM ratelimit_policies p
    WHERE p.name IN (SELECT jsonb_array_elements_text(CASE WHEN e ? 'ps' THEN e -> 'ps' ELSE jsonb_build_array(e -> 'p') END)
                       FROM jsonb_array_elements(p_items) e)
    ORDER BY p.name COLLATE "C"
      FOR KEY SHARE;
  FOR it IN
    SELECT t.e, t.i::integer AS i
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, i)
     ORDER BY t.e ->> 'k' COLLATE "C", t.e ->> 'p' COLLATE "C", t.i
  LOOP
    IF it.e ? 'ps' THEN
      v_res[it.i] := admit_ratelimit_check_multi(ARRAY(SELECT jsonb_array_elements_text(it.e -> 'ps')), it.e ->> 'k',
                                                 (it.e ->> 'c')::integer, it.e -> 'i', p_lock_timeout_ms);
    ELSE
      v_res[it.i] := admit_ratelimit_check(it.e ->> 'p', it.e ->> 'k', (it.e ->> 'c')::integer, it.e -> 'i', p_lock_timeout_ms);
    END IF;
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;
