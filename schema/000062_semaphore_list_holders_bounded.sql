-- GET /v1/semaphores embedded every holder of every semaphore it listed: up to 10 000 each
-- (MAX_PERMITS), so one page of 1 000 semaphores could carry ten million holders, and the dashboard
-- asks for it every few seconds. The list now carries the p_holders lowest slots of each semaphore
-- and `more_holders`, how many it left out; GET /v1/semaphores/{name} still lists every holder
-- (more_holders 0). The use count and the holders are read at one instant, so that
-- in_use = holders listed + more_holders even while claims expire.

CREATE FUNCTION admit_semaphore_json(p_name text, p_holders integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', s.name,
    'permits', s.permits,
    'default_ttl_ms', s.default_ttl_ms,
    'in_use', u.n,
    'available', greatest(s.permits - u.n, 0),
    'holders', coalesce(h.list, '[]'::json),
    'more_holders', u.n - h.k,
    'created_at', admit_rfc3339(s.created_at),
    'updated_at', admit_rfc3339(s.updated_at))
  FROM semaphores s
  CROSS JOIN (SELECT clock_timestamp() AS t) at_
  CROSS JOIN LATERAL (
    -- The count walks this semaphore's claims (permits_one_per_slot), not every unfinished claim of
    -- every semaphore and lease by expiry, which the planner otherwise picks: `(… > t) IS TRUE` is
    -- the same test, not an index condition. Measured: 16 ms → 2 ms for a semaphore of 5 000 holders
    -- among 100 000.
    SELECT count(*)::integer AS n
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
               AND p.expires_at > at_.t
             ORDER BY p.slot LIMIT p_holders) p
  ) h
  WHERE s.name = p_name
$$;

-- One semaphore: every holder.
CREATE OR REPLACE FUNCTION admit_semaphore_state(p_name text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_semaphore_json(p_name, NULL)
$$;

DROP FUNCTION admit_semaphore_list(text, integer);
CREATE FUNCTION admit_semaphore_list(p_after text, p_limit integer, p_holders integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), '[]'::json)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) s
$$;
