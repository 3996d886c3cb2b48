-- Answers bounded below Neon's 10 MiB (issue 28, item 5).
--
-- Neon's HTTP SQL endpoint answers at most 10 MiB and refuses a larger result with an error that has
-- no SQLSTATE, which the Worker took for a lost connection: 503 "database unavailable, retry in 2 s",
-- the same on every retry. Two answers had no bound:
--  * a resource's availability listed every busy and free interval of a window of up to 366 days:
--    80 000 two-minute reservations gave 1.8 MB for a month and over 10 MiB for six months;
--  * one semaphore (GET /v1/semaphores/{name}, and the answer of its PUT) listed every holder:
--    10 000 holders of 200 characters were over it.
-- Now availability covers at most p_limit busy intervals: when the window holds more, the answer
-- stops at the start of the next reservation (`to` is that instant) and says `next_from`, where the
-- next call starts. And a semaphore carries at most p_holders holders, lowest slots after p_after_slot
-- first, with more_holders counting the rest (as the list does).

-- Free and busy intervals of a resource within [p_from, p_to), covering at most p_limit active
-- reservations: `to` is p_to, or the start of the first reservation left out, which is `next_from`
-- (absent when the answer reaches p_to).
-- Active reservations of a resource never overlap, so cutting at a reservation's start splits none.
DROP FUNCTION admit_resource_availability(text, timestamptz, timestamptz);
CREATE FUNCTION admit_resource_availability(p_resource text, p_from timestamptz, p_to timestamptz, p_limit integer)
RETURNS json
LANGUAGE sql STABLE AS $$
  WITH picked AS (
    SELECT r.during, row_number() OVER (ORDER BY lower(r.during)) AS n
      FROM (SELECT during FROM reservations
             WHERE resource = p_resource AND cancelled_at IS NULL AND during && tstzrange(p_from, p_to, '[)')
             ORDER BY lower(during)
             LIMIT p_limit + 1) r
  ), cut AS (
    SELECT coalesce((SELECT greatest(lower(during), p_from) FROM picked WHERE n = p_limit + 1), p_to) AS upto,
           EXISTS (SELECT 1 FROM picked WHERE n = p_limit + 1) AS more
  ), win AS (SELECT tstzrange(p_from, cut.upto, '[)') AS w, cut.upto, cut.more FROM cut),
  busy AS (
    SELECT coalesce(range_agg(p.during * win.w) FILTER (WHERE NOT isempty(p.during * win.w)), '{}'::tstzmultirange) AS m
      FROM win LEFT JOIN picked p ON p.n <= p_limit
  )
  SELECT json_strip_nulls(json_build_object(
    'resource', p_resource,
    'from', admit_rfc3339(p_from),
    'to', admit_rfc3339(win.upto),
    'free', (SELECT coalesce(json_agg(json_build_object('start', admit_rfc3339(lower(f)), 'end', admit_rfc3339(upper(f))) ORDER BY lower(f)), '[]'::json)
               FROM unnest(tstzmultirange(win.w) - busy.m) AS f WHERE NOT isempty(f)),
    'busy', (SELECT coalesce(json_agg(json_build_object('start', admit_rfc3339(lower(b)), 'end', admit_rfc3339(upper(b))) ORDER BY lower(b)), '[]'::json)
               FROM unnest(busy.m) AS b),
    'next_from', CASE WHEN win.more THEN admit_rfc3339(win.upto) END
  ))
  FROM win, busy
$$;

-- A semaphore's size, use and at most p_holders holders (NULL: no bound) with slots after
-- p_after_slot (NULL: from the lowest), with more_holders: the holders after the last one listed.
CREATE FUNCTION admit_semaphore_json(p_name text, p_holders integer, p_after_slot integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', s.name,
    'permits', s.permits,
    'default_ttl_ms', s.default_ttl_ms,
    'in_use', u.n,
    'available', greatest(s.permits - u.n, 0),
    'holders', coalesce(h.list, '[]'::json),
    'more_holders', u.after - h.k,
    'created_at', admit_rfc3339(s.created_at),
    'updated_at', admit_rfc3339(s.updated_at))
  FROM semaphores s
  CROSS JOIN (SELECT clock_timestamp() AS t) at_
  CROSS JOIN LATERAL (
    SELECT count(*)::integer AS n, count(*) FILTER (WHERE p.slot > coalesce(p_after_slot, -1))::integer AS after
      FROM permits p
     WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
       AND (p.expires_at > at_.t) IS TRUE
  ) u
  CROSS JOIN LATERAL (
    SELECT count(*)::integer AS k,
           json_agg(json_build_object('slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
                                      'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
                    ORDER BY p.slot) AS list
      FROM (SELECT * FROM permits p
             WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL
               AND p.slot > coalesce(p_after_slot, -1) AND p.expires_at > at_.t
             ORDER BY p.slot LIMIT p_holders) p
  ) h
  WHERE s.name = p_name
$$;

CREATE OR REPLACE FUNCTION admit_semaphore_json(p_name text, p_holders integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_semaphore_json(p_name, p_holders, NULL)
$$;

-- One semaphore (GET, and the answer of a PUT): its first 1 000 holders by slot (1 000 holders of
-- 200 characters are about 350 KB) and more_holders.
CREATE OR REPLACE FUNCTION admit_semaphore_state(p_name text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_semaphore_json(p_name, 1000, NULL)
$$;
