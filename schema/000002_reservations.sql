-- Non-overlapping reservations of a resource over half-open time ranges [start, end) — seed 000.
--
-- Two guarantees, layered:
--  1. admit_reserve() takes pg_advisory_xact_lock(fnv64('reservation/' || resource)) before it checks
--     and inserts, so concurrent requests for one resource queue up and each sees the previous
--     one's committed row (READ COMMITTED takes a fresh snapshot per statement inside the function).
--     It can therefore answer "409, and here is what you overlap" instead of failing blindly.
--  2. The EXCLUDE constraint is the database's own guarantee, whatever path writes the table.

CREATE TABLE reservations (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  resource     text NOT NULL,
  holder       text NOT NULL,
  during       tstzrange NOT NULL,
  metadata     jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  CONSTRAINT reservations_resource_length CHECK (char_length(resource) BETWEEN 1 AND 200),
  CONSTRAINT reservations_holder_length CHECK (char_length(holder) BETWEEN 1 AND 200),
  CONSTRAINT reservations_during_bounded CHECK (
    NOT isempty(during) AND lower_inc(during) AND NOT upper_inc(during)
    AND NOT lower_inf(during) AND NOT upper_inf(during)
  ),
  CONSTRAINT reservations_no_overlap
    EXCLUDE USING gist (resource WITH =, during WITH &&) WHERE (cancelled_at IS NULL)
);

-- Listing in start order with a (start, id) cursor.
CREATE INDEX reservations_active_by_start ON reservations (resource, lower(during), id)
  WHERE cancelled_at IS NULL;

-- The public representation, built once here so every endpoint answers the same shape
-- (json, not jsonb, to keep the fields in this order).
CREATE FUNCTION admit_reservation_json(r reservations) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'id', r.id,
    'resource', r.resource,
    'holder', r.holder,
    'start', admit_rfc3339(lower(r.during)),
    'end', admit_rfc3339(upper(r.during)),
    'metadata', r.metadata,
    'status', CASE WHEN r.cancelled_at IS NULL THEN 'active' ELSE 'cancelled' END,
    'created_at', admit_rfc3339(r.created_at),
    'cancelled_at', admit_rfc3339(r.cancelled_at)
  )
$$;

-- The whole decision in one statement: lock, check, insert, answer.
-- Returns {"created": true, "reservation": {...}} or {"created": false, "conflicts": [{id, holder, start, end}, ...]}.
CREATE FUNCTION admit_reserve(
  p_lock_key bigint,
  p_resource text,
  p_holder text,
  p_start timestamptz,
  p_end timestamptz,
  p_metadata jsonb,
  p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_during tstzrange := tstzrange(p_start, p_end, '[)');
  v_conflicts json;
  v_row reservations;
BEGIN
  -- Local to this statement's transaction: a queue on a hot resource answers 503, never hangs.
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);

  SELECT json_agg(json_build_object(
           'id', c.id, 'holder', c.holder,
           'start', admit_rfc3339(lower(c.during)), 'end', admit_rfc3339(upper(c.during)))
         ORDER BY lower(c.during))
    INTO v_conflicts
    FROM (SELECT id, holder, during FROM reservations
           WHERE resource = p_resource AND cancelled_at IS NULL AND during && v_during
           ORDER BY lower(during) LIMIT 100) c;

  IF v_conflicts IS NOT NULL THEN
    RETURN json_build_object('created', false, 'conflicts', v_conflicts);
  END IF;

  INSERT INTO reservations (resource, holder, during, metadata)
  VALUES (p_resource, p_holder, v_during, p_metadata)
  RETURNING * INTO v_row;

  RETURN json_build_object('created', true, 'reservation', admit_reservation_json(v_row));
END
$$;

-- Cancel keeps the row as history; its time is free at once (the constraint ignores cancelled rows).
-- Returns the reservation, or NULL when the id is unknown. Cancelling twice keeps the first time.
CREATE FUNCTION admit_cancel_reservation(p_id uuid) RETURNS json
LANGUAGE sql AS $$
  WITH cancelled AS (
    UPDATE reservations SET cancelled_at = now()
     WHERE id = p_id AND cancelled_at IS NULL
    RETURNING *
  )
  SELECT coalesce(
    (SELECT admit_reservation_json(c) FROM cancelled c),
    (SELECT admit_reservation_json(r) FROM reservations r WHERE r.id = p_id)
  )
$$;

CREATE FUNCTION admit_get_reservation(p_id uuid) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT admit_reservation_json(r) FROM reservations r WHERE r.id = p_id
$$;

-- Active reservations of a resource overlapping [p_from, p_to) (NULL = unbounded), in start order,
-- after the (start, id) cursor. Returns up to p_limit + 1 items so the caller knows a next page exists.
CREATE FUNCTION admit_list_reservations(
  p_resource text, p_from timestamptz, p_to timestamptz,
  p_after_start timestamptz, p_after_id uuid, p_limit integer
) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), '[]'::json)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource AND cancelled_at IS NULL
             AND during && tstzrange(p_from, p_to, '[)')
             AND (p_after_start IS NULL OR (lower(during), id) > (p_after_start, p_after_id))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$$;

-- Free and busy intervals of a resource within [p_from, p_to), by multirange arithmetic.
CREATE FUNCTION admit_resource_availability(p_resource text, p_from timestamptz, p_to timestamptz)
RETURNS json
LANGUAGE sql STABLE AS $$
  WITH win AS (SELECT tstzrange(p_from, p_to, '[)') AS w),
  busy AS (
    SELECT coalesce(range_agg(r.during * win.w), '{}'::tstzmultirange) AS m
      FROM win JOIN reservations r
        ON r.resource = p_resource AND r.cancelled_at IS NULL AND r.during && win.w
  )
  SELECT json_build_object(
    'resource', p_resource,
    'from', admit_rfc3339(p_from),
    'to', admit_rfc3339(p_to),
    'free', (SELECT coalesce(json_agg(json_build_object('start', admit_rfc3339(lower(f)), 'end', admit_rfc3339(upper(f))) ORDER BY lower(f)), '[]'::json)
               FROM win, busy, unnest(tstzmultirange(win.w) - busy.m) AS f),
    'busy', (SELECT coalesce(json_agg(json_build_object('start', admit_rfc3339(lower(b)), 'end', admit_rfc3339(upper(b))) ORDER BY lower(b)), '[]'::json)
               FROM busy, unnest(busy.m) AS b)
  )
$$;
