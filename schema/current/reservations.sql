-- GENERATED FILE: DO NOT EDIT.
--
-- The reservations part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE reservations (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  resource text NOT NULL,
  holder text NOT NULL,
  during tstzrange NOT NULL,
  metadata jsonb,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  cancelled_at timestamp with time zone,
  CONSTRAINT reservations_pkey PRIMARY KEY (id),
  CONSTRAINT reservations_no_overlap EXCLUDE USING gist (resource WITH =, during WITH &&) WHERE ((cancelled_at IS NULL)),
  CONSTRAINT reservations_during_bounded CHECK (((NOT isempty(during)) AND lower_inc(during) AND (NOT upper_inc(during)) AND (NOT lower_inf(during)) AND (NOT upper_inf(during)))),
  CONSTRAINT reservations_holder_length CHECK (((char_length(holder) >= 1) AND (char_length(holder) <= 200))),
  CONSTRAINT reservations_resource_length CHECK (((char_length(resource) >= 1) AND (char_length(resource) <= 200)))
);
COMMENT ON TABLE reservations IS 'Bookings of a resource for a half-open [start, end); cancelled ones stay as history. The EXCLUDE constraint guarantees no two active reservations of one resource overlap.';
CREATE INDEX reservations_active_by_start ON public.reservations USING btree (resource, lower(during), id) WHERE (cancelled_at IS NULL);
CREATE INDEX reservations_all_by_start ON public.reservations USING btree (resource, lower(during), id);

-- Functions

CREATE OR REPLACE FUNCTION public.admit_cancel_reservation(p_id uuid)
 RETURNS json
 LANGUAGE sql
AS $function$
  WITH cancelled AS (
    UPDATE reservations SET cancelled_at = now()
     WHERE id = p_id AND cancelled_at IS NULL
    RETURNING *
  )
  SELECT coalesce(
    (SELECT admit_reservation_json(c) FROM cancelled c),
    (SELECT admit_reservation_json(r) FROM reservations r WHERE r.id = p_id)
  )
$function$;
COMMENT ON FUNCTION admit_cancel_reservation(p_id uuid) IS 'Cancels a reservation (its time is free at once); the row stays as history; cancelling twice keeps the first time. NULL for an unknown id.';

CREATE OR REPLACE FUNCTION public.admit_get_reservation(p_id uuid)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_reservation_json(r) FROM reservations r WHERE r.id = p_id
$function$;
COMMENT ON FUNCTION admit_get_reservation(p_id uuid) IS 'One reservation by id, in its public shape, or NULL.';

CREATE OR REPLACE FUNCTION public.admit_list_reservations(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_after_start timestamp with time zone, p_after_id uuid, p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_page(array_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), p_limit, p_max_bytes)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource AND cancelled_at IS NULL
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$function$;
COMMENT ON FUNCTION admit_list_reservations(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_after_start timestamp with time zone, p_after_id uuid, p_limit integer, p_max_bytes integer) IS 'Active reservations of a resource overlapping [p_from, p_to), by start then id, after a keyset cursor, one bounded page.';

CREATE OR REPLACE FUNCTION public.admit_list_reservations_history(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_after_start timestamp with time zone, p_after_id uuid, p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_page(array_agg(admit_reservation_json(r) ORDER BY lower(r.during), r.id), p_limit, p_max_bytes)
    FROM (SELECT * FROM reservations
           WHERE resource = p_resource
             AND during && tstzrange(p_from, p_to, '[)')
             AND (lower(during), id) > (coalesce(p_after_start, '-infinity'), coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           ORDER BY lower(during), id
           LIMIT p_limit + 1) r
$function$;
COMMENT ON FUNCTION admit_list_reservations_history(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_after_start timestamp with time zone, p_after_id uuid, p_limit integer, p_max_bytes integer) IS 'admit_list_reservations with cancelled reservations too, in the same order and pages.';

CREATE OR REPLACE FUNCTION public.admit_reservation_json(r reservations)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_reservation_json(r reservations) IS 'A reservation''s public shape, built in one place so every endpoint answers alike.';

CREATE OR REPLACE FUNCTION public.admit_reserve(p_lock_key bigint, p_resource text, p_holder text, p_start timestamp with time zone, p_end timestamp with time zone, p_metadata jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_reserve(p_lock_key bigint, p_resource text, p_holder text, p_start timestamp with time zone, p_end timestamp with time zone, p_metadata jsonb, p_lock_timeout_ms integer) IS 'Decides one reservation: under the resource''s advisory lock, refuses with the overlapping reservations or inserts it; one statement, one transaction.';

CREATE OR REPLACE FUNCTION public.admit_reserve_batch(p_items jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_reserve_batch(p_items jsonb, p_lock_timeout_ms integer) IS 'Decides several reservations in one statement, each exactly as admit_reserve alone would, taking the resources'' locks in one global order.';

CREATE OR REPLACE FUNCTION public.admit_resource_availability(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_resource_availability(p_resource text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer) IS 'The free and taken intervals of a resource over [p_from, p_to), at most p_limit taken ones.';
