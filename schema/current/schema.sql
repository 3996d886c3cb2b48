-- GENERATED FILE: DO NOT EDIT.
--
-- The schema that applying schema/NNNNNN_*.sql in order produces, built from the catalogs of a
-- freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts). It is for reading only:
-- it is never applied, and a change to the schema goes in a new numbered migration, after which
-- `npm run schema:dump` rewrites this file. test/schema.dump.test.ts fails while it is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by dev/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Extensions

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

-- Sequences

CREATE SEQUENCE admit_fencing_token AS bigint INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE admit_audit (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  at timestamp with time zone DEFAULT now() NOT NULL,
  key_id uuid,
  key_name text NOT NULL,
  action text NOT NULL,
  target text NOT NULL,
  change jsonb NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT admit_audit_pkey PRIMARY KEY (id)
);
CREATE INDEX admit_audit_by_at ON public.admit_audit USING btree (at, id);
CREATE INDEX admit_audit_by_expiry ON public.admit_audit USING btree (expires_at);
CREATE INDEX admit_audit_by_key ON public.admit_audit USING btree (key_id, at, id);
CREATE INDEX admit_audit_by_target ON public.admit_audit USING btree (target, at, id);

CREATE TABLE admit_key_secrets (
  hash bytea NOT NULL,
  key_id uuid NOT NULL,
  start text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone,
  CONSTRAINT admit_key_secrets_pkey PRIMARY KEY (hash),
  CONSTRAINT admit_key_secrets_key_id_fkey FOREIGN KEY (key_id) REFERENCES admit_keys(id) ON DELETE CASCADE,
  CONSTRAINT admit_key_secrets_hash_check CHECK ((length(hash) = 32))
);
CREATE INDEX admit_key_secrets_by_key ON public.admit_key_secrets USING btree (key_id);

CREATE TABLE admit_keys (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  name text NOT NULL,
  scopes text[] NOT NULL,
  names text[],
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  last_used_at timestamp with time zone,
  lookups bigint DEFAULT 0 NOT NULL,
  CONSTRAINT admit_keys_pkey PRIMARY KEY (id),
  CONSTRAINT admit_keys_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200))),
  CONSTRAINT admit_keys_names_check CHECK (((names IS NULL) OR ((cardinality(names) >= 1) AND (cardinality(names) <= 64)))),
  CONSTRAINT admit_keys_scopes_check CHECK (((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 64)))
);

CREATE TABLE idempotency_keys (
  key text NOT NULL,
  request_method text NOT NULL,
  request_path text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key),
  CONSTRAINT idempotency_keys_key_length CHECK (((char_length(key) >= 1) AND (char_length(key) <= 255)))
);
CREATE INDEX idempotency_keys_expiry ON public.idempotency_keys USING btree (expires_at);

CREATE TABLE inventory_bookings (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  item text NOT NULL,
  holder text NOT NULL,
  check_in date NOT NULL,
  check_out date NOT NULL,
  quantity integer NOT NULL,
  status text NOT NULL,
  expires_at timestamp with time zone,
  created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
  confirmed_at timestamp with time zone,
  cancelled_at timestamp with time zone,
  CONSTRAINT inventory_bookings_pkey PRIMARY KEY (id),
  CONSTRAINT inventory_bookings_dates CHECK (((check_out > check_in) AND ((check_out - check_in) <= 366))),
  CONSTRAINT inventory_bookings_hold_expiry CHECK (((status <> 'held'::text) OR (expires_at IS NOT NULL))),
  CONSTRAINT inventory_bookings_holder_length CHECK (((char_length(holder) >= 1) AND (char_length(holder) <= 200))),
  CONSTRAINT inventory_bookings_item_length CHECK (((char_length(item) >= 1) AND (char_length(item) <= 200))),
  CONSTRAINT inventory_bookings_quantity CHECK ((quantity >= 1)),
  CONSTRAINT inventory_bookings_status CHECK ((status = ANY (ARRAY['held'::text, 'confirmed'::text, 'cancelled'::text, 'expired'::text])))
);
CREATE INDEX inventory_bookings_by_check_out ON public.inventory_bookings USING btree (check_out);
CREATE INDEX inventory_bookings_held ON public.inventory_bookings USING btree (expires_at) WHERE (status = 'held'::text);

CREATE TABLE inventory_nights (
  item text NOT NULL,
  night date NOT NULL,
  capacity integer NOT NULL,
  CONSTRAINT inventory_nights_pkey PRIMARY KEY (item, night),
  CONSTRAINT inventory_nights_capacity_check CHECK ((capacity >= 0)),
  CONSTRAINT inventory_nights_item_length CHECK (((char_length(item) >= 1) AND (char_length(item) <= 200)))
);
CREATE INDEX inventory_nights_by_night ON public.inventory_nights USING btree (night);

CREATE TABLE inventory_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  item text NOT NULL,
  night date NOT NULL,
  slot integer NOT NULL,
  booking_id uuid,
  held_until timestamp with time zone,
  CONSTRAINT inventory_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT inventory_tokens_slot UNIQUE (item, night, slot),
  CONSTRAINT inventory_tokens_booking_id_fkey FOREIGN KEY (booking_id) REFERENCES inventory_bookings(id),
  CONSTRAINT inventory_tokens_item_night_fkey FOREIGN KEY (item, night) REFERENCES inventory_nights(item, night),
  CONSTRAINT inventory_tokens_hold_has_booking CHECK (((held_until IS NULL) OR (booking_id IS NOT NULL)))
);
CREATE INDEX inventory_tokens_booking ON public.inventory_tokens USING btree (booking_id) WHERE (booking_id IS NOT NULL);
CREATE INDEX inventory_tokens_expiry ON public.inventory_tokens USING btree (held_until) WHERE (held_until IS NOT NULL);
CREATE INDEX inventory_tokens_free ON public.inventory_tokens USING btree (item, night, slot) WHERE (booking_id IS NULL);
CREATE INDEX inventory_tokens_held ON public.inventory_tokens USING btree (item, night, held_until) WHERE (held_until IS NOT NULL);

CREATE TABLE invoices (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  subscription_id text NOT NULL,
  kind text NOT NULL,
  number integer NOT NULL,
  work_ms integer NOT NULL,
  started_at timestamp with time zone NOT NULL,
  finished_at timestamp with time zone NOT NULL,
  CONSTRAINT invoices_pkey PRIMARY KEY (id),
  CONSTRAINT invoices_number_unique UNIQUE (subscription_id, number),
  CONSTRAINT invoices_kind CHECK ((kind = ANY (ARRAY['usage'::text, 'recurring'::text]))),
  CONSTRAINT invoices_subscription_length CHECK (((char_length(subscription_id) >= 1) AND (char_length(subscription_id) <= 200))),
  CONSTRAINT invoices_work_range CHECK (((work_ms >= 0) AND (work_ms <= 3000)))
);

CREATE TABLE metric_minutes (
  name text NOT NULL,
  labels jsonb NOT NULL,
  minute timestamp with time zone NOT NULL,
  value bigint NOT NULL,
  CONSTRAINT metric_minutes_pkey PRIMARY KEY (name, labels, minute)
);
CREATE INDEX metric_minutes_minute ON public.metric_minutes USING btree (minute);

CREATE TABLE metric_policies (
  name text NOT NULL,
  labelled_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT metric_policies_pkey PRIMARY KEY (name)
);

CREATE TABLE metric_totals (
  name text NOT NULL,
  labels jsonb NOT NULL,
  value bigint NOT NULL,
  CONSTRAINT metric_totals_pkey PRIMARY KEY (name, labels)
);

CREATE TABLE permits (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  slot integer NOT NULL,
  holder text NOT NULL,
  fencing_token bigint NOT NULL,
  ttl_ms integer NOT NULL,
  claimed_at timestamp with time zone NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  renewed_at timestamp with time zone,
  released_at timestamp with time zone,
  timed_out_at timestamp with time zone,
  CONSTRAINT permits_pkey PRIMARY KEY (id),
  CONSTRAINT permits_fencing_token_key UNIQUE (fencing_token),
  CONSTRAINT permits_holder_length CHECK (((char_length(holder) >= 1) AND (char_length(holder) <= 200))),
  CONSTRAINT permits_kind CHECK ((kind = ANY (ARRAY['semaphore'::text, 'lease'::text]))),
  CONSTRAINT permits_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
  CONSTRAINT permits_one_ending CHECK (((released_at IS NULL) OR (timed_out_at IS NULL))),
  CONSTRAINT permits_slot_range CHECK ((((slot >= 0) AND (slot <= 9999)) AND ((kind = 'semaphore'::text) OR (slot = 0)))),
  CONSTRAINT permits_ttl_range CHECK (((ttl_ms >= 1000) AND (ttl_ms <= 3600000)))
);
CREATE INDEX permits_finished_at ON public.permits USING btree (COALESCE(released_at, timed_out_at)) WHERE ((released_at IS NOT NULL) OR (timed_out_at IS NOT NULL));
CREATE UNIQUE INDEX permits_one_per_slot ON public.permits USING btree (kind, name, slot) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE INDEX permits_unfinished_by_expiry ON public.permits USING btree (expires_at) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE INDEX permits_unfinished_by_key_expiry ON public.permits USING btree (kind, name, expires_at) WHERE ((released_at IS NULL) AND (timed_out_at IS NULL));
CREATE TRIGGER permits_deleted AFTER DELETE ON public.permits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_inserted AFTER INSERT ON public.permits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();
CREATE TRIGGER permits_updated AFTER UPDATE ON public.permits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION admit_permits_changed();

CREATE TABLE ratelimit_counters (
  policy text NOT NULL,
  key text NOT NULL,
  slot bigint NOT NULL,
  window_start timestamp with time zone NOT NULL,
  consumed bigint DEFAULT 0 NOT NULL,
  admitted bigint DEFAULT 0 NOT NULL,
  attempted bigint DEFAULT 0 NOT NULL,
  rejected bigint DEFAULT 0 NOT NULL,
  tat numeric,
  last_allowed boolean NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT ratelimit_counters_pkey PRIMARY KEY (policy, key, slot)
) WITH (fillfactor=60);

CREATE TABLE ratelimit_log (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  at timestamp with time zone NOT NULL,
  policy text NOT NULL,
  key text NOT NULL,
  allowed boolean NOT NULL,
  cost integer NOT NULL,
  info jsonb,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT ratelimit_log_pkey PRIMARY KEY (id)
);
CREATE INDEX ratelimit_log_expires_at ON public.ratelimit_log USING btree (expires_at);
CREATE INDEX ratelimit_log_policy_key_at ON public.ratelimit_log USING btree (policy, key, at);

CREATE TABLE ratelimit_overrides (
  policy text NOT NULL,
  key text NOT NULL,
  quota integer NOT NULL,
  valid tstzrange NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT ratelimit_overrides_no_overlap EXCLUDE USING gist (policy WITH =, key WITH =, valid WITH &&),
  CONSTRAINT ratelimit_overrides_policy_fkey FOREIGN KEY (policy) REFERENCES ratelimit_policies(name) ON DELETE CASCADE,
  CONSTRAINT ratelimit_overrides_quota CHECK ((quota > 0)),
  CONSTRAINT ratelimit_overrides_valid CHECK (((NOT isempty(valid)) AND lower_inc(valid) AND (NOT upper_inc(valid)) AND (NOT lower_inf(valid))))
);
CREATE INDEX ratelimit_overrides_by_key_start ON public.ratelimit_overrides USING btree (policy, key, lower(valid));

CREATE TABLE ratelimit_policies (
  name text NOT NULL,
  algorithm text NOT NULL,
  quota integer NOT NULL,
  window_ms bigint NOT NULL,
  log boolean DEFAULT false NOT NULL,
  history_ms bigint DEFAULT 604800000 NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  timeout_ms integer DEFAULT 5000 NOT NULL,
  on_unavailable text DEFAULT 'deny'::text NOT NULL,
  CONSTRAINT ratelimit_policies_pkey PRIMARY KEY (name),
  CONSTRAINT ratelimit_policies_algorithm CHECK ((algorithm = ANY (ARRAY['fixed_window'::text, 'sliding_window'::text, 'token_bucket'::text]))),
  CONSTRAINT ratelimit_policies_history CHECK (((history_ms >= 0) AND (history_ms <= '31622400000'::bigint))),
  CONSTRAINT ratelimit_policies_name CHECK ((name ~ '^[A-Za-z0-9._:-]{1,100}$'::text)),
  CONSTRAINT ratelimit_policies_on_unavailable CHECK ((on_unavailable = ANY (ARRAY['deny'::text, 'allow'::text]))),
  CONSTRAINT ratelimit_policies_quota CHECK ((quota > 0)),
  CONSTRAINT ratelimit_policies_timeout CHECK (((timeout_ms >= 1) AND (timeout_ms <= 60000))),
  CONSTRAINT ratelimit_policies_window CHECK (((window_ms >= 1) AND (window_ms <= '31622400000'::bigint)))
);

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
CREATE INDEX reservations_active_by_start ON public.reservations USING btree (resource, lower(during), id) WHERE (cancelled_at IS NULL);
CREATE INDEX reservations_all_by_start ON public.reservations USING btree (resource, lower(during), id);

CREATE TABLE semaphore_free_slots (
  name text NOT NULL,
  slot integer NOT NULL,
  CONSTRAINT semaphore_free_slots_pkey PRIMARY KEY (name, slot),
  CONSTRAINT semaphore_free_slots_name_fkey FOREIGN KEY (name) REFERENCES semaphores(name) ON DELETE CASCADE
);

CREATE TABLE semaphores (
  name text NOT NULL,
  permits integer NOT NULL,
  default_ttl_ms integer NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  in_use integer DEFAULT 0 NOT NULL,
  CONSTRAINT semaphores_pkey PRIMARY KEY (name),
  CONSTRAINT semaphores_name_length CHECK (((char_length(name) >= 1) AND (char_length(name) <= 200))),
  CONSTRAINT semaphores_permits_range CHECK (((permits >= 1) AND (permits <= 10000))),
  CONSTRAINT semaphores_ttl_range CHECK (((default_ttl_ms >= 1000) AND (default_ttl_ms <= 3600000)))
);
CREATE TRIGGER semaphores_counted BEFORE INSERT ON public.semaphores FOR EACH ROW EXECUTE FUNCTION admit_semaphores_sized();
CREATE TRIGGER semaphores_resized AFTER INSERT OR UPDATE OF permits ON public.semaphores FOR EACH ROW EXECUTE FUNCTION admit_semaphores_resized();

CREATE TABLE webhook_events (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  source text NOT NULL,
  webhook_id text NOT NULL,
  webhook_timestamp timestamp with time zone,
  payload json NOT NULL,
  ordering_value text,
  received_at timestamp with time zone DEFAULT now() NOT NULL,
  claim_expires_at timestamp with time zone,
  claims integer DEFAULT 0 NOT NULL,
  processed_at timestamp with time zone,
  claim_receipt uuid,
  event_type text,
  signed_sha256 text,
  CONSTRAINT webhook_events_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_events_once UNIQUE (source, webhook_id),
  CONSTRAINT webhook_events_source_fkey FOREIGN KEY (source) REFERENCES webhook_sources(source) ON DELETE CASCADE,
  CONSTRAINT webhook_events_id_length CHECK (((char_length(webhook_id) >= 1) AND (char_length(webhook_id) <= 255)))
);
CREATE INDEX webhook_events_by_source ON public.webhook_events USING btree (source, seq);
CREATE INDEX webhook_events_ordering ON public.webhook_events USING btree (source, ordering_value, seq) WHERE ((processed_at IS NULL) AND (ordering_value IS NOT NULL));
CREATE INDEX webhook_events_pending ON public.webhook_events USING btree (source, seq) WHERE (processed_at IS NULL);
CREATE INDEX webhook_events_processed ON public.webhook_events USING btree (processed_at) WHERE (processed_at IS NOT NULL);
CREATE INDEX webhook_events_signed ON public.webhook_events USING btree (source, signed_sha256, received_at) WHERE (signed_sha256 IS NOT NULL);

CREATE TABLE webhook_sources (
  source text NOT NULL,
  secret text NOT NULL,
  tolerance_s integer DEFAULT 300,
  ordering_key text,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  scheme text DEFAULT 'standard-webhooks'::text NOT NULL,
  hmac jsonb,
  previous_secret text,
  previous_secret_expires_at timestamp with time zone,
  recent_rejections jsonb DEFAULT '[]'::jsonb NOT NULL,
  replay_window_s integer,
  CONSTRAINT webhook_sources_pkey PRIMARY KEY (source),
  CONSTRAINT webhook_sources_hmac CHECK (((scheme = 'hmac'::text) = (hmac IS NOT NULL))),
  CONSTRAINT webhook_sources_name CHECK (((source ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'::text) AND (source <> 'sources'::text))),
  CONSTRAINT webhook_sources_ordering_key CHECK (((ordering_key IS NULL) OR (ordering_key ~ '^(/([^~/]|~[01])*)+$'::text))),
  CONSTRAINT webhook_sources_previous CHECK (((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))),
  CONSTRAINT webhook_sources_replay_window CHECK (((replay_window_s >= 1) AND (replay_window_s <= 604800))),
  CONSTRAINT webhook_sources_scheme CHECK ((scheme = ANY (ARRAY['standard-webhooks'::text, 'stripe'::text, 'github'::text, 'shopify'::text, 'slack'::text, 'hmac'::text]))),
  CONSTRAINT webhook_sources_tolerance CHECK (((tolerance_s >= 1) AND (tolerance_s <= 86400)))
);

-- Functions

CREATE OR REPLACE FUNCTION public.admit_advisory_xact_lock_within(p_key bigint, p_wait_ms integer)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_previous text := current_setting('lock_timeout');
BEGIN
  -- The exception block is a subtransaction: a timed-out wait rolls back only itself (and this
  -- set_config), so the caller's transaction stays usable and gets a plain false.
  PERFORM set_config('lock_timeout', greatest(p_wait_ms, 1)::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_key);
  PERFORM set_config('lock_timeout', v_previous, true);
  RETURN true;
EXCEPTION WHEN lock_not_available THEN
  RETURN false;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_audit_list(p_target text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_before_at timestamp with time zone, p_before_id bigint, p_limit integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', a.at, 'key', jsonb_build_object('id', a.key_id, 'name', a.key_name),
           'action', a.action, 'target', a.target, 'change', a.change) ORDER BY a.at DESC, a.id DESC), '[]'::jsonb)
    FROM (SELECT * FROM admit_audit
           WHERE (p_target IS NULL OR target = p_target)
             AND (p_key IS NULL OR (p_key = 'root' AND key_id IS NULL) OR key_id::text = p_key)
             AND (p_from IS NULL OR at >= p_from)
             AND (p_to IS NULL OR at < p_to)
             AND (p_before_at IS NULL OR (at, id) < (p_before_at, p_before_id))
           ORDER BY at DESC, id DESC
           LIMIT p_limit + 1) a
$function$;

CREATE OR REPLACE FUNCTION public.admit_audit_write(p_entry jsonb)
 RETURNS boolean
 LANGUAGE sql
AS $function$
  INSERT INTO admit_audit (key_id, key_name, action, target, change, expires_at)
  VALUES (
    (p_entry->'actor'->>'id')::uuid,
    p_entry->'actor'->>'name',
    p_entry->>'action',
    p_entry->>'target',
    coalesce(p_entry->'change', '{}'::jsonb),
    now() + make_interval(days => coalesce((p_entry->>'keep_days')::integer, 90))
  );
  SELECT true
$function$;

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

CREATE OR REPLACE FUNCTION public.admit_fnv64(p_text text)
 RETURNS bigint
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
DECLARE
  b bytea := convert_to(p_text, 'UTF8');
  h numeric := 14695981039346656037;
  lo integer;
BEGIN
  FOR i IN 0 .. length(b) - 1 LOOP
    lo := (h % 256)::integer;
    h := (((h - lo) + (lo # get_byte(b, i))) * 1099511628211) % 18446744073709551616;
  END LOOP;
  IF h >= 9223372036854775808 THEN
    h := h - 18446744073709551616;
  END IF;
  RETURN h::bigint;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_generate_invoice(p_subscription_id text, p_kind text, p_work_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row invoices;
BEGIN
  IF p_work_ms > 0 THEN
    PERFORM pg_sleep(p_work_ms / 1000.0);
  END IF;
  INSERT INTO invoices (subscription_id, kind, number, work_ms, started_at, finished_at)
  SELECT p_subscription_id, p_kind, coalesce(max(number), 0) + 1, p_work_ms, now(), clock_timestamp()
    FROM invoices WHERE subscription_id = p_subscription_id
  RETURNING * INTO v_row;
  RETURN json_build_object(
    'id', v_row.id,
    'subscription_id', v_row.subscription_id,
    'kind', v_row.kind,
    'number', v_row.number,
    'work_ms', v_row.work_ms,
    'started_at', admit_rfc3339(v_row.started_at),
    'finished_at', admit_rfc3339(v_row.finished_at));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_get_reservation(p_id uuid)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_reservation_json(r) FROM reservations r WHERE r.id = p_id
$function$;

CREATE OR REPLACE FUNCTION public.admit_idempotency_claim(p_key text, p_method text, p_path text, p_hash text, p_ttl_s integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row idempotency_keys;
  v_n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      -- Blocks while another open transaction has inserted the same key; lock_timeout bounds it.
      INSERT INTO idempotency_keys (key, request_method, request_path, request_hash, expires_at)
      VALUES (p_key, p_method, p_path, p_hash, now() + make_interval(secs => p_ttl_s))
      ON CONFLICT (key) DO NOTHING;
      GET DIAGNOSTICS v_n = ROW_COUNT;
    EXCEPTION WHEN lock_not_available THEN
      RETURN json_build_object('outcome', 'in_progress');
    END;
    IF v_n = 1 THEN
      RETURN json_build_object('outcome', 'claimed');
    END IF;

    -- A fresh snapshot (READ COMMITTED, new statement) sees the committed holder of the key.
    SELECT * INTO v_row FROM idempotency_keys WHERE key = p_key;
    IF NOT FOUND THEN
      CONTINUE;  -- swept in between: claim again
    END IF;
    IF v_row.expires_at <= now() THEN
      DELETE FROM idempotency_keys WHERE key = p_key AND expires_at <= now();
      CONTINUE;
    END IF;
    IF v_row.request_method <> p_method OR v_row.request_path <> p_path OR v_row.request_hash <> p_hash THEN
      RETURN json_build_object('outcome', 'mismatch', 'method', v_row.request_method, 'path', v_row.request_path,
                               'created_at', admit_rfc3339(v_row.created_at));
    END IF;
    IF v_row.response_status IS NULL THEN
      RETURN json_build_object('outcome', 'in_progress');
    END IF;
    RETURN json_build_object('outcome', 'replay', 'status', v_row.response_status,
                             'headers', v_row.response_headers, 'body', encode(v_row.response_body, 'base64'),
                             'created_at', admit_rfc3339(v_row.created_at));
  END LOOP;
  RETURN json_build_object('outcome', 'in_progress');
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_idempotency_release(p_key text)
 RETURNS void
 LANGUAGE sql
AS $function$
  DELETE FROM idempotency_keys WHERE key = p_key AND response_status IS NULL
$function$;

CREATE OR REPLACE FUNCTION public.admit_idempotency_store(p_key text, p_status integer, p_headers jsonb, p_body_base64 text)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE idempotency_keys
     SET response_status = p_status, response_headers = p_headers, response_body = decode(p_body_base64, 'base64')
   WHERE key = p_key
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_availability(p_item text, p_from date, p_to date)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d, 'YYYY-MM-DD'),
           'capacity', coalesce(t.capacity, 0),
           'booked', coalesce(t.booked, 0),
           'held', coalesce(t.held, 0),
           'available', coalesce(t.capacity - t.booked - t.held, 0))
         ORDER BY d), '[]'::json)
    FROM admit_nights(p_from, p_to) d
    LEFT JOIN LATERAL (
      SELECT count(*)::integer AS capacity,
             count(*) FILTER (WHERE booking_id IS NOT NULL AND held_until IS NULL)::integer AS booked,
             count(*) FILTER (WHERE held_until > now())::integer AS held
        FROM inventory_tokens WHERE item = p_item AND night = d::date
    ) t ON true
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_book(p_item text, p_check_in date, p_check_out date, p_quantity integer, p_holder text, p_hold_ms integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_need integer := (p_check_out - p_check_in) * p_quantity;
  v_ids bigint[] := '{}';
  v_short json;
  v_exact json;
  v_row inventory_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      v_ids := admit_inventory_claim(p_item, p_check_in, p_check_out, p_quantity);
      IF cardinality(v_ids) < v_need THEN
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_short';
      END IF;
      EXIT;
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_short' THEN RAISE; END IF;
    END;
    -- The nights this claim came up short on (what it got there is no count: others held rooms).
    SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
      INTO v_short
      FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date)::integer AS got
              FROM admit_nights(p_check_in, p_check_out) d) x
     WHERE got < p_quantity;
    -- Wait for whoever holds free tokens of those nights, count them, let go.
    BEGIN
      PERFORM 1 FROM inventory_tokens t
       WHERE t.item = p_item
         AND t.night IN (SELECT (e ->> 'date')::date FROM json_array_elements(v_short) e)
         AND (t.booking_id IS NULL OR t.held_until <= clock_timestamp())
       ORDER BY t.night, t.slot
         FOR UPDATE OF t;
      SELECT json_agg(json_build_object('date', to_char(n, 'YYYY-MM-DD'), 'available', x.free) ORDER BY n)
        INTO v_exact
        FROM (SELECT (e ->> 'date')::date AS n FROM json_array_elements(v_short) e) s
       CROSS JOIN LATERAL (
         SELECT count(*)::integer AS free FROM inventory_tokens
          WHERE item = p_item AND night = s.n AND (booking_id IS NULL OR held_until <= clock_timestamp())
       ) x
       WHERE x.free < p_quantity;
      RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_let_go';
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_let_go' THEN RAISE; END IF;
    END;
    IF v_exact IS NOT NULL THEN
      RETURN json_build_object('created', false, 'short', v_exact);
    END IF;
  END LOOP;

  IF cardinality(v_ids) < v_need THEN
    -- Three claims met rooms that were free but locked: take them waiting instead of skipping.
    BEGIN
      v_ids := admit_inventory_claim_waiting(p_item, p_check_in, p_check_out, p_quantity);
      IF cardinality(v_ids) < v_need THEN
        SELECT json_agg(json_build_object('date', to_char(d, 'YYYY-MM-DD'), 'available', got) ORDER BY d)
          INTO v_exact
          FROM (SELECT d, (SELECT count(*) FROM inventory_tokens WHERE id = ANY (v_ids) AND night = d::date)::integer AS got
                  FROM admit_nights(p_check_in, p_check_out) d) x
         WHERE got < p_quantity;
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_inventory_short';
      END IF;
    EXCEPTION WHEN raise_exception THEN
      IF SQLERRM <> 'admit_inventory_short' THEN RAISE; END IF;
      RETURN json_build_object('created', false, 'short', v_exact);
    END;
  END IF;

  INSERT INTO inventory_bookings (item, holder, check_in, check_out, quantity, status, expires_at, confirmed_at)
  VALUES (p_item, p_holder, p_check_in, p_check_out, p_quantity,
          CASE WHEN p_hold_ms IS NULL THEN 'confirmed' ELSE 'held' END,
          CASE WHEN p_hold_ms IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => p_hold_ms / 1000.0) END,
          CASE WHEN p_hold_ms IS NULL THEN clock_timestamp() END)
  RETURNING * INTO v_row;
  UPDATE inventory_tokens SET booking_id = v_row.id, held_until = v_row.expires_at WHERE id = ANY (v_ids);
  RETURN json_build_object('created', true, 'booking', admit_inventory_booking_json(v_row));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_book_batch(p_items jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_booking_json(b inventory_bookings)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'booking_id', b.id,
    'item', b.item,
    'holder', b.holder,
    'check_in', to_char(b.check_in, 'YYYY-MM-DD'),
    'check_out', to_char(b.check_out, 'YYYY-MM-DD'),
    'quantity', b.quantity,
    'status', CASE WHEN b.status = 'held' AND b.expires_at <= now() THEN 'expired' ELSE b.status END,
    'expires_at', admit_rfc3339(b.expires_at),
    'created_at', admit_rfc3339(b.created_at),
    'confirmed_at', admit_rfc3339(b.confirmed_at),
    'cancelled_at', admit_rfc3339(b.cancelled_at)
  )
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_cancel(p_item text, p_id uuid, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row inventory_bookings;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM inventory_bookings WHERE id = p_id AND item = p_item FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF v_row.status = 'cancelled' THEN
    RETURN admit_inventory_booking_json(v_row);
  END IF;
  PERFORM admit_inventory_release(p_id);
  UPDATE inventory_bookings SET status = 'cancelled', cancelled_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN admit_inventory_booking_json(v_row);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_claim(p_item text, p_check_in date, p_check_out date, p_quantity integer)
 RETURNS bigint[]
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_claim_waiting(p_item text, p_check_in date, p_check_out date, p_quantity integer)
 RETURNS bigint[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids bigint[] := '{}';
  v_night date;
BEGIN
  FOR v_night IN SELECT d FROM admit_nights(p_check_in, p_check_out) d LOOP
    v_ids := v_ids || ARRAY(
      SELECT id FROM inventory_tokens
       WHERE item = p_item AND night = v_night AND (booking_id IS NULL OR held_until <= clock_timestamp())
       ORDER BY slot LIMIT p_quantity
         FOR UPDATE);
  END LOOP;
  RETURN v_ids;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_confirm(p_item text, p_id uuid, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row inventory_bookings;
  v_mine integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO v_row FROM inventory_bookings WHERE id = p_id AND item = p_item FOR UPDATE;
  IF NOT FOUND THEN
    RETURN json_build_object('result', 'not_found', 'booking', NULL);
  END IF;
  IF v_row.status <> 'held' THEN
    RETURN json_build_object('result', v_row.status, 'booking', admit_inventory_booking_json(v_row));
  END IF;
  -- Lock its tokens (a buyer taking a lapsed one holds it only until its commit).
  SELECT count(*) INTO v_mine FROM (
    SELECT id FROM inventory_tokens WHERE booking_id = p_id ORDER BY night, slot FOR UPDATE
  ) x;
  IF v_row.expires_at <= clock_timestamp() OR v_mine <> (v_row.check_out - v_row.check_in) * v_row.quantity THEN
    PERFORM admit_inventory_release(p_id);
    UPDATE inventory_bookings SET status = 'expired' WHERE id = p_id RETURNING * INTO v_row;
    RETURN json_build_object('result', 'expired', 'booking', admit_inventory_booking_json(v_row));
  END IF;
  UPDATE inventory_tokens SET held_until = NULL WHERE booking_id = p_id;
  UPDATE inventory_bookings SET status = 'confirmed', confirmed_at = clock_timestamp()
   WHERE id = p_id RETURNING * INTO v_row;
  RETURN json_build_object('result', 'confirmed', 'booking', admit_inventory_booking_json(v_row));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_get_booking(p_item text, p_id uuid)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_inventory_booking_json(b) FROM inventory_bookings b WHERE b.id = p_id AND b.item = p_item
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_release(p_id uuid)
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH mine AS (
    SELECT id FROM inventory_tokens WHERE booking_id = p_id ORDER BY night, slot FOR UPDATE
  ), freed AS (
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL
      FROM mine WHERE t.id = mine.id AND t.booking_id = p_id
    RETURNING 1
  )
  SELECT count(*)::integer FROM freed
$function$;

CREATE OR REPLACE FUNCTION public.admit_inventory_set_stock(p_item text, p_from date, p_to date, p_capacity integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  c_limit constant bigint := 100000;
  v_change bigint;
  v_short json;
  v_waited boolean := false;
  v_night record;
  v_ids bigint[];
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- The size of the change, before anything is written (a concurrent change of the same nights
  -- can move it by at most its own bounded size).
  SELECT coalesce(sum(abs(p_capacity - coalesce(n.capacity, 0))), 0) INTO v_change
    FROM generate_series(0, p_to - p_from - 1) i
    LEFT JOIN inventory_nights n ON n.item = p_item AND n.night = p_from + i;
  IF v_change > c_limit THEN
    RETURN json_build_object('ok', false, 'too_large', true, 'limit', c_limit, 'rooms_changed', v_change);
  END IF;

  -- New nights: inserted in date order (two writers of the same new night meet on the key).
  INSERT INTO inventory_nights (item, night, capacity)
  SELECT p_item, p_from + i, 0 FROM generate_series(0, p_to - p_from - 1) i ORDER BY i
  ON CONFLICT (item, night) DO NOTHING;
  PERFORM 1 FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to ORDER BY night FOR UPDATE;

  -- Shrink, fast pass: take exactly the surplus of free tokens nobody holds; all nights or none.
  BEGIN
    FOR v_night IN SELECT night, capacity FROM inventory_nights
              WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity
              ORDER BY night
    LOOP
      v_ids := ARRAY(
        SELECT id FROM inventory_tokens
         WHERE item = p_item AND night = v_night.night AND (booking_id IS NULL OR held_until <= clock_timestamp())
         ORDER BY slot DESC LIMIT v_night.capacity - p_capacity
           FOR UPDATE SKIP LOCKED);
      IF cardinality(v_ids) < v_night.capacity - p_capacity THEN
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admit_stock_wait';
      END IF;
      DELETE FROM inventory_tokens WHERE id = ANY (v_ids);
    END LOOP;
  EXCEPTION WHEN raise_exception THEN
    IF SQLERRM <> 'admit_stock_wait' THEN RAISE; END IF;
    v_waited := true;
  END;

  IF v_waited THEN
    -- Slow pass: wait for whoever holds free tokens of the shrinking nights (a buyer about to take
    -- or give up one), in (night, slot) order; afterwards every free token there is ours.
    PERFORM 1 FROM inventory_tokens
     WHERE item = p_item AND night >= p_from AND night < p_to
       AND night IN (SELECT night FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity)
       AND (booking_id IS NULL OR held_until <= clock_timestamp())
     ORDER BY night, slot
       FOR UPDATE;
    SELECT json_agg(json_build_object('date', to_char(night, 'YYYY-MM-DD'), 'capacity', capacity,
                                      'booked', booked, 'held', held) ORDER BY night)
      INTO v_short
      FROM (SELECT t.night, count(*)::integer AS capacity,
                   count(*) FILTER (WHERE t.booking_id IS NOT NULL AND t.held_until IS NULL)::integer AS booked,
                   count(*) FILTER (WHERE t.held_until > clock_timestamp())::integer AS held
              FROM inventory_tokens t
             WHERE t.item = p_item AND t.night >= p_from AND t.night < p_to
               AND t.night IN (SELECT night FROM inventory_nights WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity)
             GROUP BY t.night) x
     WHERE booked + held > p_capacity;
    IF v_short IS NOT NULL THEN
      RETURN json_build_object('ok', false, 'nights', v_short);
    END IF;
    FOR v_night IN SELECT night, capacity FROM inventory_nights
              WHERE item = p_item AND night >= p_from AND night < p_to AND capacity > p_capacity
              ORDER BY night
    LOOP
      -- The free tokens are ours now but for any freed since (a cancel); a buyer may take one of
      -- those first, which this FOR UPDATE re-checks. Short after all → a retryable conflict.
      v_ids := ARRAY(
        SELECT id FROM inventory_tokens
         WHERE item = p_item AND night = v_night.night AND (booking_id IS NULL OR held_until <= clock_timestamp())
         ORDER BY slot DESC LIMIT v_night.capacity - p_capacity
           FOR UPDATE);
      IF cardinality(v_ids) < v_night.capacity - p_capacity THEN
        RAISE EXCEPTION 'rooms of % on % were taken while its stock was being lowered; retry', p_item, v_night.night USING ERRCODE = '40001';
      END IF;
      DELETE FROM inventory_tokens WHERE id = ANY (v_ids);
    END LOOP;
  END IF;

  -- Grow: the new slots above the highest one of each night.
  INSERT INTO inventory_tokens (item, night, slot)
  SELECT p_item, n.night, s
    FROM inventory_nights n
   CROSS JOIN LATERAL (SELECT coalesce(max(t.slot), 0) AS top FROM inventory_tokens t WHERE t.item = p_item AND t.night = n.night) h
   CROSS JOIN LATERAL generate_series(h.top + 1, h.top + p_capacity - n.capacity) s
   WHERE n.item = p_item AND n.night >= p_from AND n.night < p_to AND n.capacity < p_capacity
   ORDER BY n.night, s;
  UPDATE inventory_nights SET capacity = p_capacity
   WHERE item = p_item AND night >= p_from AND night < p_to AND capacity <> p_capacity;

  RETURN json_build_object('ok', true, 'nights', admit_inventory_availability(p_item, p_from, p_to));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_create(p_entry jsonb, p_name text, p_scopes text[], p_names text[], p_expires_at timestamp with time zone, p_hash bytea, p_start text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  k admit_keys;
BEGIN
  INSERT INTO admit_keys (name, scopes, names, expires_at) VALUES (p_name, p_scopes, p_names, p_expires_at) RETURNING * INTO k;
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, k.id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('name', p_name, 'scopes', to_jsonb(p_scopes), 'names', to_jsonb(p_names), 'expires_at', p_expires_at, 'start', p_start)));
  RETURN admit_key_json(k);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_json(k admit_keys)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
    'id', k.id, 'name', k.name, 'scopes', to_jsonb(k.scopes), 'names', to_jsonb(k.names),
    'created_at', k.created_at, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at, 'last_used_at', k.last_used_at,
    'secrets', coalesce((
      SELECT jsonb_agg(jsonb_build_object('start', s.start, 'created_at', s.created_at, 'expires_at', s.expires_at) ORDER BY s.created_at)
        FROM admit_key_secrets s
       WHERE s.key_id = k.id AND (s.expires_at IS NULL OR s.expires_at > now())
    ), '[]'::jsonb)
  )
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_list(p_after_at timestamp with time zone, p_after_id uuid, p_limit integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(jsonb_agg(admit_key_json(k) ORDER BY k.created_at, k.id), '[]'::jsonb)
    FROM (SELECT * FROM admit_keys
           WHERE p_after_at IS NULL OR (created_at, id) > (p_after_at, p_after_id)
           ORDER BY created_at, id
           LIMIT p_limit + 1) k
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_lookup(p_hash bytea)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v jsonb;
BEGIN
  UPDATE admit_keys k SET last_used_at = now(), lookups = k.lookups + 1
    FROM admit_key_secrets s
   WHERE s.hash = p_hash AND s.key_id = k.id
     AND k.revoked_at IS NULL
     AND (k.expires_at IS NULL OR k.expires_at > now())
     AND (s.expires_at IS NULL OR s.expires_at > now())
  RETURNING jsonb_build_object(
    'id', k.id, 'name', k.name, 'scopes', to_jsonb(k.scopes), 'names', to_jsonb(k.names),
    'valid_ms', floor(extract(epoch FROM (least(k.expires_at, s.expires_at) - now())) * 1000)::bigint
  ) INTO v;
  RETURN v;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_revoke(p_entry jsonb, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  k admit_keys;
BEGIN
  UPDATE admit_keys SET revoked_at = now() WHERE id = p_id AND revoked_at IS NULL RETURNING * INTO k;
  IF NOT FOUND THEN
    SELECT * INTO k FROM admit_keys WHERE id = p_id;
    RETURN CASE WHEN FOUND THEN admit_key_json(k) END;
  END IF;
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change', jsonb_build_object('revoked_at', k.revoked_at)));
  RETURN admit_key_json(k);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_key_rotate(p_entry jsonb, p_id uuid, p_hash bytea, p_start text, p_overlap_ms bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  k admit_keys;
  v_until timestamptz := now() + make_interval(secs => p_overlap_ms / 1000.0);
BEGIN
  SELECT * INTO k FROM admit_keys WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF k.revoked_at IS NOT NULL OR k.expires_at <= now() THEN
    RETURN jsonb_build_object('status', 'gone');
  END IF;
  UPDATE admit_key_secrets SET expires_at = least(coalesce(expires_at, v_until), v_until)
   WHERE key_id = p_id AND (expires_at IS NULL OR expires_at > now());
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, p_id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('start', p_start, 'old_secrets_expire_at', v_until)));
  RETURN jsonb_build_object('status', 'rotated', 'key', admit_key_json(k), 'old_secrets_expire_at', v_until);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_lease_list(p_prefix text, p_after text, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(json_build_object(
           'key', p.name,
           'held', true,
           'holder', p.holder,
           'fencing_token', p.fencing_token,
           'claimed_at', admit_rfc3339(p.claimed_at),
           'expires_at', admit_rfc3339(p.expires_at)) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM permits
           WHERE kind = 'lease' AND released_at IS NULL AND timed_out_at IS NULL
             AND expires_at > clock_timestamp()
             AND (p_prefix IS NULL OR starts_with(name, p_prefix))
             AND name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$function$;

CREATE OR REPLACE FUNCTION public.admit_lease_state(p_key text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'key', p_key,
    'held', p.id IS NOT NULL,
    'holder', p.holder,
    'fencing_token', p.fencing_token,
    'claimed_at', admit_rfc3339(p.claimed_at),
    'expires_at', admit_rfc3339(p.expires_at))
  FROM (SELECT 1) one
  LEFT JOIN permits p
    ON p.kind = 'lease' AND p.name = p_key AND p.released_at IS NULL AND p.timed_out_at IS NULL
   AND p.expires_at > clock_timestamp()
$function$;

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

CREATE OR REPLACE FUNCTION public.admit_metric_counters()
 RETURNS TABLE(name text, labels jsonb, value bigint)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT s.name, s.labels, sum(s.value)::bigint
    FROM (SELECT t.name, t.labels, t.value FROM metric_totals t
          UNION ALL
          SELECT m.name, m.labels, m.value FROM metric_minutes m) s
   GROUP BY s.name, s.labels
   ORDER BY s.name, s.labels::text
$function$;

CREATE OR REPLACE FUNCTION public.admit_metric_gauges()
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'permits_in_use', (SELECT coalesce(json_object_agg(k.kind, k.n), '{}'::json) FROM (
        SELECT kind, count(*) AS n FROM permits
         WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at > now() GROUP BY kind) k),
    'semaphore_permits', (SELECT coalesce(sum(permits), 0) FROM semaphores),
    'webhooks', (SELECT coalesce(json_agg(json_build_object(
        'source', s.source,
        'waiting', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= now())),
        'claimed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claim_expires_at > now()),
        'lapsed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claims > 0 AND e.claim_expires_at <= now()),
        'oldest_waiting_s', (SELECT coalesce(extract(epoch FROM now() - min(e.received_at)), 0) FROM webhook_events e
                      WHERE e.source = s.source AND e.processed_at IS NULL)
      ) ORDER BY s.source), '[]'::json) FROM webhook_sources s),
    'sweep_due', json_build_object(
      'ratelimits', (SELECT count(*) FROM (SELECT 1 FROM ratelimit_counters WHERE expires_at <= now() LIMIT 100000) x)
                  + (SELECT count(*) FROM (SELECT 1 FROM ratelimit_log WHERE expires_at <= now() LIMIT 100000) x),
      'permits', (SELECT count(*) FROM (SELECT 1 FROM permits WHERE released_at IS NULL AND timed_out_at IS NULL
                                         AND expires_at <= now() LIMIT 100000) x),
      'idempotency', (SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE expires_at <= now() LIMIT 100000) x),
      'webhook_events', (SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE processed_at < now() - interval '7 days' LIMIT 100000) x),
      'inventory', (SELECT count(*) FROM (SELECT 1 FROM inventory_tokens WHERE held_until <= now() LIMIT 100000) x)),
    'now', admit_rfc3339(now()))
$function$;

CREATE OR REPLACE FUNCTION public.admit_ms_to_ts(ms numeric)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT 'epoch'::timestamptz + ms * interval '1 millisecond'
$function$;

CREATE OR REPLACE FUNCTION public.admit_nights(p_from date, p_to date)
 RETURNS SETOF date
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT p_from + i FROM generate_series(0, p_to - p_from - 1) i
$function$;

CREATE OR REPLACE FUNCTION public.admit_observe_flush(p_hits jsonb, p_counts jsonb, p_max_policies integer, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(now());
  h record;
  v_slot bigint;
  v_ws numeric;
  v_hits bigint := 0;
  v_dropped bigint := 0;
  v_rows integer := 0;
  v_room integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR h IN
    SELECT x.p, x.k, x.n, x.a, x.u, pol.algorithm, pol.window_ms, pol.history_ms,
           CASE WHEN pol.algorithm = 'fixed_window' AND x.u IS NOT NULL
                THEN round((v_now + x.u) / pol.window_ms)::bigint - 1
                WHEN pol.algorithm = 'token_bucket' THEN -1
                ELSE floor((v_now - coalesce(x.a, 0)) / pol.window_ms)::bigint END AS slot
      FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text, k text, n integer, a bigint, u bigint)
      LEFT JOIN ratelimit_policies pol ON pol.name = x.p
     ORDER BY x.p COLLATE "C", x.k COLLATE "C", 9
  LOOP
    IF h.algorithm IS NULL OR h.n IS NULL OR h.n <= 0 THEN
      v_dropped := v_dropped + coalesce(greatest(h.n, 0), 0);
      CONTINUE;
    END IF;
    IF h.algorithm = 'token_bucket' THEN
      -- The bucket's row counts the aligned window it last saw; a later window restarts its counts
      -- (as a check does). Calls of a window the row has already left are not stored anywhere.
      v_ws := floor((v_now - coalesce(h.a, 0)) / h.window_ms) * h.window_ms;
      UPDATE ratelimit_counters c SET
        consumed = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.consumed ELSE 0 END,
        admitted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.admitted ELSE 0 END,
        attempted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.attempted ELSE 0 END + h.n,
        rejected = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.rejected ELSE 0 END + h.n,
        window_start = admit_ms_to_ts(v_ws)
       WHERE c.policy = h.p AND c.key = h.k AND c.slot = -1 AND c.window_start <= admit_ms_to_ts(v_ws);
      IF FOUND THEN v_hits := v_hits + h.n; ELSE v_dropped := v_dropped + h.n; END IF;
    ELSE
      v_ws := h.slot * h.window_ms;
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
      VALUES (h.p, h.k, h.slot, admit_ms_to_ts(v_ws), 0, 0, h.n, h.n, false,
              admit_ms_to_ts(v_ws + h.window_ms + greatest(h.window_ms, h.history_ms)))
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        attempted = c.attempted + h.n,
        rejected = c.rejected + h.n;
      v_hits := v_hits + h.n;
    END IF;
  END LOOP;

  IF jsonb_array_length(coalesce(p_counts, '[]')) > 0 THEN
    -- New policy labels while there is room (a few over the cap when two flushes meet: said in the docs).
    v_room := greatest(0, p_max_policies - (SELECT count(*) FROM metric_policies)::integer);
    IF v_room > 0 THEN
      INSERT INTO metric_policies (name)
      SELECT DISTINCT x.l->>'policy'
        FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
       WHERE x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
       ORDER BY 1 LIMIT v_room
      ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO metric_minutes AS mm (name, labels, minute, value)
    SELECT y.m, y.l, y.minute, sum(y.n)
      FROM (SELECT x.m,
                   CASE WHEN x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
                        THEN jsonb_set(x.l, '{policy}', '"_other"') ELSE x.l END AS l,
                   date_trunc('minute', now() - coalesce(x.a, 0) * interval '1 millisecond') AS minute,
                   x.n
              FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
             WHERE x.m IS NOT NULL AND x.l IS NOT NULL AND x.n > 0) y
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (name, labels, minute) DO UPDATE SET value = mm.value + EXCLUDED.value;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  RETURN json_build_object('hits', v_hits, 'dropped', v_dropped, 'counts', v_rows);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_page(p_items json[], p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT json_build_object(
    'items', coalesce(json_agg(x.j ORDER BY x.n) FILTER (WHERE x.keep), '[]'::json),
    'more', coalesce(bool_or(NOT x.keep), false))
  FROM (SELECT t.j, t.n,
               t.n = 1 OR (t.n <= p_limit AND sum(octet_length(t.j::text)) OVER (ORDER BY t.n) <= p_max_bytes) AS keep
          FROM unnest(p_items) WITH ORDINALITY AS t(j, n)) x
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_acquire(p_lock_key bigint, p_kind text, p_name text, p_holder text, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_permits integer;
  v_ttl integer;
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_slot integer;
  v_busy json;
  v_row permits;
BEGIN
  SELECT c.permits, c.ttl_ms INTO v_permits, v_ttl FROM admit_permit_config(p_kind, p_name, p_ttl_ms) c;
  IF v_permits IS NULL THEN
    RETURN json_build_object('status', 'not_found');
  END IF;

  -- Full already (by this statement's snapshot): refuse without queueing on the lock, so a burst of
  -- losers does not stand in line behind each other just to hear "no".
  v_busy := admit_permit_busy(p_kind, p_name, v_permits, v_now);
  IF (v_busy->>'in_use')::integer >= v_permits THEN
    RETURN v_busy;
  END IF;

  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  -- Under the lock each statement sees every earlier holder's committed claim (READ COMMITTED).
  v_now := coalesce(p_now, clock_timestamp());
  SELECT c.permits INTO v_permits FROM admit_permit_config(p_kind, p_name, p_ttl_ms) c;
  PERFORM admit_permits_time_out(p_kind, p_name, v_now);
  v_busy := admit_permit_busy(p_kind, p_name, v_permits, v_now);
  IF (v_busy->>'in_use')::integer >= v_permits THEN
    RETURN v_busy;
  END IF;

  -- Fewer than `permits` unfinished claims, so some slot below `permits` is free.
  IF p_kind = 'semaphore' THEN
    SELECT min(f.slot) INTO v_slot FROM semaphore_free_slots f WHERE f.name = p_name;
  ELSE
    v_slot := 0;
  END IF;

  INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
  VALUES (p_kind, p_name, v_slot, p_holder, nextval('admit_fencing_token'), v_ttl, v_now, v_now + v_ttl * interval '1 millisecond')
  RETURNING * INTO v_row;

  RETURN json_build_object('status', 'acquired', 'permit', admit_permit_json(v_row));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_acquire_batch(p_items jsonb, p_lock_timeout_ms integer)
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
    v_res[it.i] := admit_permit_acquire((it.e ->> 'key')::bigint, it.e ->> 'kind', it.e ->> 'name', it.e ->> 'holder',
                                        (it.e ->> 'ttl_ms')::integer, p_lock_timeout_ms);
  END LOOP;
  RETURN array_to_json(v_res);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_busy(p_kind text, p_name text, p_permits integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'status', 'busy',
    'permits', p_permits,
    'in_use', u.n,
    'holder', CASE WHEN p_kind = 'lease' THEN (
      SELECT p.holder FROM permits p
       WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL AND p.expires_at > p_now
       ORDER BY p.expires_at LIMIT 1) END,
    'expires_at', admit_rfc3339(e.t),
    'retry_after_ms', greatest(0, ceil(extract(epoch FROM e.t - p_now) * 1000))::bigint)
  FROM (SELECT CASE WHEN p_kind = 'semaphore' THEN
                 (SELECT s.in_use FROM semaphores s WHERE s.name = p_name)
                 - (SELECT count(*) FROM permits p
                     WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
                       AND p.expires_at <= p_now)
               ELSE (SELECT count(*) FROM permits p
                      WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
                        AND p.expires_at > p_now)
               END AS n) u,
       (SELECT min(p.expires_at) AS t FROM permits p
         WHERE p.kind = p_kind AND p.name = p_name AND p.released_at IS NULL AND p.timed_out_at IS NULL
           AND p.expires_at > p_now) e
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_check_current(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row permits;
BEGIN
  IF p_kind = 'semaphore' AND NOT EXISTS (SELECT 1 FROM semaphores WHERE name = p_name) THEN
    RETURN json_build_object('status', 'not_found');
  END IF;
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  PERFORM admit_permits_time_out(p_kind, p_name, coalesce(p_now, clock_timestamp()));
  SELECT * INTO v_row FROM permits WHERE id = p_id AND kind = p_kind AND name = p_name;
  IF NOT FOUND THEN
    RETURN json_build_object('status', 'not_current', 'state', 'unknown');
  END IF;
  IF v_row.released_at IS NOT NULL OR v_row.timed_out_at IS NOT NULL THEN
    RETURN json_build_object(
      'status', 'not_current',
      'state', CASE WHEN v_row.released_at IS NOT NULL THEN 'released' ELSE 'timed_out' END,
      'released_at', admit_rfc3339(v_row.released_at),
      'timed_out_at', admit_rfc3339(v_row.timed_out_at));
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_config(p_kind text, p_name text, p_ttl_ms integer, OUT permits integer, OUT ttl_ms integer)
 RETURNS record
 LANGUAGE sql
 STABLE
AS $function$
  SELECT 1, p_ttl_ms WHERE p_kind = 'lease'
  UNION ALL
  SELECT s.permits, coalesce(p_ttl_ms, s.default_ttl_ms) FROM semaphores s WHERE p_kind = 'semaphore' AND s.name = p_name
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_json(p permits)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE p.kind
    WHEN 'lease' THEN json_build_object(
      'lease_id', p.id, 'key', p.name, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
    ELSE json_build_object(
      'permit_id', p.id, 'semaphore', p.name, 'slot', p.slot, 'holder', p.holder, 'fencing_token', p.fencing_token,
      'ttl_ms', p.ttl_ms, 'claimed_at', admit_rfc3339(p.claimed_at), 'expires_at', admit_rfc3339(p.expires_at))
  END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_release(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits SET released_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now;
  IF NOT FOUND THEN
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'released');
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permit_renew(p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_ttl_ms integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
  v_row permits;
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits
     SET ttl_ms = coalesce(p_ttl_ms, ttl_ms),
         expires_at = v_now + coalesce(p_ttl_ms, ttl_ms) * interval '1 millisecond',
         renewed_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now
  RETURNING * INTO v_row;
  IF NOT FOUND THEN
    -- Ended since the check (the sweeper, or its expiry passed): say how, as the check would.
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'renewed', 'permit', admit_permit_json(v_row));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permits_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now_unfinished jsonb := '[]';
  v_was_unfinished jsonb := '[]';
BEGIN
  IF TG_OP <> 'DELETE' THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'slot', slot, 'n', 1)), '[]') INTO v_now_unfinished
      FROM new_rows WHERE kind = 'semaphore' AND released_at IS NULL AND timed_out_at IS NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('name', name, 'slot', slot, 'n', -1)), '[]') INTO v_was_unfinished
      FROM old_rows WHERE kind = 'semaphore' AND released_at IS NULL AND timed_out_at IS NULL;
  END IF;
  IF v_now_unfinished || v_was_unfinished <> '[]' THEN
    PERFORM admit_semaphore_claims_changed(v_now_unfinished || v_was_unfinished);
  END IF;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_permits_time_out(p_kind text, p_name text, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH t AS (
    UPDATE permits SET timed_out_at = expires_at
     WHERE kind = p_kind AND name = p_name AND released_at IS NULL AND timed_out_at IS NULL AND expires_at <= p_now
    RETURNING 1
  )
  SELECT count(*)::integer FROM t
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now bigint;                -- ms since the epoch, floored: slot and reset come out as in numeric
  v_ws bigint;                 -- window start, ms
  v_end bigint;                -- ms until the window ends
  v_room bigint;               -- the most `consumed` may be for this cost to fit
  v_left bigint;
  v_set text;
  r ratelimit_counters;
  v_over integer;              -- the quota of the override in force, if any
  v_next timestamptz;          -- the key's next override boundary after now, if any
  v_stop bigint;               -- ms until the window ends, or until that boundary if sooner
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF pol.algorithm <> 'fixed_window' OR p_cost <= 0 OR pol.log THEN
    RETURN admit_ratelimit_check_any(p_policy, p_key, p_cost, p_info, p_lock_timeout_ms, p_now);
  END IF;
  -- An assignment, not PERFORM: a simple expression skips the executor.
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  -- The limit in force (the key's override valid now, else the policy's) and the key's next override
  -- boundary after now (the start of a later override, or the end of the one in force): one index
  -- look-up. No wait answered goes past that boundary, where the limit changes.
  SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
         min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
    INTO v_over, v_next
    FROM ratelimit_overrides o
   WHERE o.policy = p_policy AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  v_limit := coalesce(v_over, pol.quota);
  v_now := floor(extract(epoch FROM p_now) * 1000);
  v_ws := v_now / pol.window_ms * pol.window_ms;
  v_end := v_ws + pol.window_ms - v_now;
  v_room := v_limit - p_cost;
  INSERT INTO ratelimit_counters AS c
    (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
  VALUES (p_policy, p_key, v_ws / pol.window_ms, 'epoch'::timestamptz + v_ws * interval '1 millisecond',
          CASE WHEN 0 <= v_room THEN p_cost ELSE 0 END,
          CASE WHEN 0 <= v_room THEN 1 ELSE 0 END, 1,
          CASE WHEN 0 <= v_room THEN 0 ELSE 1 END,
          0 <= v_room,
          'epoch'::timestamptz + (v_ws + pol.window_ms + greatest(pol.window_ms, pol.history_ms)) * interval '1 millisecond')
  ON CONFLICT (policy, key, slot) DO UPDATE SET
    -- Every right-hand side reads the row as it was (the latest committed version, locked).
    last_allowed = c.consumed <= v_room,
    consumed = c.consumed + CASE WHEN c.consumed <= v_room THEN p_cost ELSE 0 END,
    admitted = c.admitted + CASE WHEN c.consumed <= v_room THEN 1 ELSE 0 END,
    attempted = c.attempted + 1,
    rejected = c.rejected + CASE WHEN c.consumed <= v_room THEN 0 ELSE 1 END
  RETURNING * INTO r;
  v_left := v_limit - r.consumed;
  v_stop := v_end;
  IF v_next IS NOT NULL THEN
    -- As admit_ratelimit_check_any: no wait past the next override boundary (same arithmetic, so the
    -- same milliseconds).
    v_stop := least(v_end, ceil(admit_ts_to_ms(v_next) - admit_ts_to_ms(p_now))::bigint);
  END IF;
  RETURN json_build_object(
    'allowed', r.last_allowed,
    'policy', p_policy,
    'key', p_key,
    'limit', v_limit,
    'window_ms', pol.window_ms,
    'log', false,
    'remaining', greatest(0, v_left),
    'reset_ms', v_end,
    -- Refused: the window's end (or the next override boundary), or never when the cost is above the limit.
    'retry_after_ms', CASE WHEN NOT r.last_allowed AND p_cost <= v_limit THEN v_stop END,
    'wait1_ms', CASE WHEN v_left >= 1 THEN 0 ELSE v_stop END,
    'timeout_ms', pol.timeout_ms,
    'on_unavailable', pol.on_unavailable);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_any(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric;
  v_t numeric;                 -- GCRA emission interval: window / limit
  v_slot bigint;
  v_ws numeric;                -- window start, ms
  v_prev numeric;              -- sliding: consumed units of the previous window
  v_weight numeric;            -- sliding: share of the previous window still inside the sliding one
  v_expires timestamptz;
  r ratelimit_counters;
  v_allowed boolean;
  v_remaining numeric;
  v_reset numeric;
  v_cur numeric;
  v_base numeric;
  v_room numeric;              -- windows: the most `consumed` may be for this cost to fit
  v_inc numeric;               -- GCRA: cost · T
  v_fits numeric;              -- GCRA: the latest max(TAT, now) that still admits this cost
  v_ws_ts timestamptz;
  v_eps constant numeric := 0.000001;  -- numeric division rounds at ~1e-20; never let that deny the last unit
  v_over integer;              -- the quota of the override in force, if any
  v_next timestamptz;          -- the key's next override boundary after now, if any
  v_wait numeric;
  v_wait1 numeric;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- admit_ratelimit_frame(), inlined: a nested plpgsql call costs more than these lines on every check.
  -- The limit in force (the key's override valid now, else the policy's) and the key's next override
  -- boundary after now (the start of a later override, or the end of the one in force): one index
  -- look-up. No wait answered goes past that boundary, where the limit changes.
  SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
         min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
    INTO v_over, v_next
    FROM ratelimit_overrides o
   WHERE o.policy = p_policy AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  v_limit := coalesce(v_over, pol.quota);
  v_w := pol.window_ms;
  v_slot := floor(v_now / v_w);
  v_ws := v_slot * v_w;
  v_prev := 0;
  v_weight := 0;
  IF pol.algorithm = 'sliding_window' THEN
    v_prev := coalesce((SELECT c.consumed FROM ratelimit_counters c
                         WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot - 1), 0);
    v_weight := 1 - (v_now - v_ws) / v_w;
  END IF;

  IF pol.algorithm = 'token_bucket' THEN
    v_t := v_w / v_limit;
    IF p_cost = 0 THEN
      SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1;
      v_base := greatest(coalesce(r.tat, v_now), v_now);
      v_allowed := v_base + v_t - v_now <= v_w + v_eps;
    ELSE
      -- Admit iff max(TAT, now) + cost·T − now ≤ window, i.e. max(TAT, now) ≤ v_fits; then TAT := max(TAT, now) + cost·T.
      v_inc := p_cost * v_t;
      v_fits := v_now + v_w + v_eps - v_inc;
      v_ws_ts := admit_ms_to_ts(v_ws);
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
      VALUES (p_policy, p_key, -1, v_ws_ts,
              CASE WHEN v_now <= v_fits THEN p_cost ELSE 0 END,
              CASE WHEN v_now <= v_fits THEN 1 ELSE 0 END, 1,
              CASE WHEN v_now <= v_fits THEN 0 ELSE 1 END,
              CASE WHEN v_now <= v_fits THEN v_now + v_inc ELSE v_now END,
              v_now <= v_fits,
              -- A refused first check keeps no tokens: the row expires with its window, not cost·T
              -- ahead (which for the largest cost on a long window was out of timestamp range).
              admit_ms_to_ts(greatest(CASE WHEN v_now <= v_fits THEN v_now + v_inc ELSE v_now END, v_ws + v_w)))
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        -- Every right-hand side reads the row as it was (the latest committed version, locked).
        -- The counts restart when the aligned statistics window has moved on.
        last_allowed = greatest(c.tat, v_now) <= v_fits,
        tat = CASE WHEN greatest(c.tat, v_now) <= v_fits THEN greatest(c.tat, v_now) + v_inc ELSE c.tat END,
        window_start = v_ws_ts,
        consumed = CASE WHEN c.window_start = v_ws_ts THEN c.consumed ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN p_cost ELSE 0 END,
        admitted = CASE WHEN c.window_start = v_ws_ts THEN c.admitted ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN 1 ELSE 0 END,
        attempted = CASE WHEN c.window_start = v_ws_ts THEN c.attempted ELSE 0 END + 1,
        rejected = CASE WHEN c.window_start = v_ws_ts THEN c.rejected ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN 0 ELSE 1 END,
        -- From the new TAT (the same expression as `tat` above): the row outlives it, so the sweeper
        -- never deletes a bucket that is still (partly) empty and hands the key a full one.
        expires_at = admit_ms_to_ts(greatest(
          CASE WHEN greatest(c.tat, v_now) <= v_fits THEN greatest(c.tat, v_now) + v_inc ELSE c.tat END,
          v_ws + v_w))
      RETURNING * INTO r;
      v_allowed := r.last_allowed;
      v_base := greatest(r.tat, v_now);
    END IF;
    v_remaining := least(v_limit, floor((v_w - (v_base - v_now) + v_eps) / v_t));
    v_reset := v_base - v_now;
  ELSE
    IF p_cost = 0 THEN
      SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = v_slot;
      v_cur := coalesce(r.consumed, 0);
      v_allowed := v_cur + 1 + v_prev * v_weight <= v_limit;
    ELSE
      v_expires := admit_ms_to_ts(v_ws + v_w + greatest(v_w, pol.history_ms));
      -- Admit iff consumed + cost + prev·weight ≤ limit, i.e. consumed ≤ v_room.
      v_room := v_limit - p_cost - v_prev * v_weight;
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
      VALUES (p_policy, p_key, v_slot, admit_ms_to_ts(v_ws),
              CASE WHEN 0 <= v_room THEN p_cost ELSE 0 END,
              CASE WHEN 0 <= v_room THEN 1 ELSE 0 END, 1,
              CASE WHEN 0 <= v_room THEN 0 ELSE 1 END,
              0 <= v_room, v_expires)
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        -- Every right-hand side reads the row as it was (the latest committed version, locked).
        last_allowed = c.consumed <= v_room,
        consumed = c.consumed + CASE WHEN c.consumed <= v_room THEN p_cost ELSE 0 END,
        admitted = c.admitted + CASE WHEN c.consumed <= v_room THEN 1 ELSE 0 END,
        attempted = c.attempted + 1,
        rejected = c.rejected + CASE WHEN c.consumed <= v_room THEN 0 ELSE 1 END
      RETURNING * INTO r;
      v_allowed := r.last_allowed;
      v_cur := r.consumed;
    END IF;
    v_remaining := floor(v_limit - v_cur - v_prev * v_weight);
    v_reset := v_ws + v_w - v_now;
  END IF;

  IF pol.log AND p_cost > 0 THEN
    INSERT INTO ratelimit_log (at, policy, key, allowed, cost, info, expires_at)
    VALUES (p_now, p_policy, p_key, v_allowed, p_cost, p_info, p_now + pol.history_ms * interval '1 millisecond');
  END IF;

  IF NOT v_allowed THEN
    v_wait := admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, greatest(p_cost, 1), v_ws, coalesce(v_cur, 0), v_prev, r.tat);
  END IF;
  -- A unit still fits now (remaining ≥ 1) ⇒ waiting for one unit is 0: skip the computation
  -- while the counter row is locked.
  v_wait1 := CASE WHEN v_remaining >= 1 THEN 0
                  ELSE admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, 1, v_ws, coalesce(v_cur, 0), v_prev, r.tat) END;
  IF v_next IS NOT NULL THEN
    -- Stop at the next override boundary: the limit changes there, so the wait computed under this
    -- one says nothing past it (NULL, a cost above the limit in force, stays NULL).
    -- (least() skips NULLs: a NULL wait is left alone, not replaced by the boundary.)
    IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_now); END IF;
    v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_now);
  END IF;

  RETURN json_build_object(
    'allowed', v_allowed,
    'policy', p_policy,
    'key', p_key,
    'limit', v_limit,
    'window_ms', pol.window_ms,
    'log', pol.log,
    'remaining', greatest(0, v_remaining)::bigint,
    'reset_ms', ceil(greatest(0, v_reset))::bigint,
    'retry_after_ms', ceil(v_wait)::bigint,
    'wait1_ms', ceil(v_wait1)::bigint,
    'timeout_ms', pol.timeout_ms,
    'on_unavailable', pol.on_unavailable);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  g record;
  v_run json[];
  v_set text;
  j integer;
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  PERFORM 1
     FROM ratelimit_policies p
    WHERE p.name IN (SELECT jsonb_array_elements_text(CASE WHEN e ? 'ps' THEN e -> 'ps' ELSE jsonb_build_array(e -> 'p') END)
                       FROM jsonb_array_elements(p_items) e)
    ORDER BY p.name COLLATE "C"
      FOR KEY SHARE;
  -- One row per (key, policy) in the counters' lock order; a multi-policy item's key is its own
  -- (the coalescer holds a second item of that key for the next batch), so it is a run of one.
  FOR g IN
    SELECT t.k, t.p, array_agg(t.i::integer ORDER BY t.i) AS idx, array_agg(t.e ORDER BY t.i) AS es
      FROM (SELECT e ->> 'k' AS k, e ->> 'p' AS p, e, i FROM jsonb_array_elements(p_items) WITH ORDINALITY AS u(e, i)) t
     GROUP BY t.k, t.p
     ORDER BY t.k COLLATE "C", t.p COLLATE "C"
  LOOP
    IF g.p IS NULL OR cardinality(g.idx) = 1 THEN
      FOR j IN 1 .. cardinality(g.idx) LOOP
        IF g.es[j] ? 'ps' THEN
          v_res[g.idx[j]] := admit_ratelimit_check_multi(ARRAY(SELECT jsonb_array_elements_text(g.es[j] -> 'ps')), g.k,
                                                         (g.es[j] ->> 'c')::integer, g.es[j] -> 'i', p_lock_timeout_ms);
        ELSE
          v_res[g.idx[j]] := admit_ratelimit_check(g.p, g.k, (g.es[j] ->> 'c')::integer, g.es[j] -> 'i', p_lock_timeout_ms);
        END IF;
      END LOOP;
    ELSE
      v_run := admit_ratelimit_check_run(g.p, g.k, ARRAY(SELECT (e ->> 'c')::integer FROM unnest(g.es) WITH ORDINALITY u(e, o) ORDER BY o),
                                         ARRAY(SELECT e -> 'i' FROM unnest(g.es) WITH ORDINALITY u(e, o) ORDER BY o), p_lock_timeout_ms);
      FOR j IN 1 .. cardinality(g.idx) LOOP
        v_res[g.idx[j]] := v_run[j];
      END LOOP;
    END IF;
  END LOOP;
  RETURN array_to_json(v_res);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_multi(p_policies text[], p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(p_now);
  v_eps constant numeric := 0.000001;
  v_names text[];
  n integer;
  pol ratelimit_policies;
  v_pols ratelimit_policies[] := '{}';
  v_lim integer[] := '{}';
  v_slot bigint[] := '{}';
  v_ws numeric[] := '{}';
  v_prev numeric[] := '{}';
  v_weight numeric[] := '{}';
  v_cur numeric[] := '{}';     -- windows: consumed; token bucket: TAT
  v_fits boolean[] := '{}';
  v_res json[] := '{}';
  v_allowed boolean := true;
  v_missing text[];
  v_w numeric;
  v_t numeric;
  v_l integer;
  v_c numeric;
  v_base numeric;
  v_remaining numeric;
  v_reset numeric;
  v_ws_ts timestamptz;
  v_set text;
  v_over integer;
  v_next timestamptz;
  v_stop numeric[] := '{}';    -- ms until the key's next override boundary of each policy (NULL: none)
  v_wait numeric;
  v_wait1 numeric;
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  v_names := ARRAY(SELECT DISTINCT u COLLATE "C" FROM unnest(p_policies) u ORDER BY 1);
  n := coalesce(array_length(v_names, 1), 0);
  v_missing := ARRAY(SELECT u FROM unnest(v_names) u WHERE NOT EXISTS (SELECT 1 FROM ratelimit_policies p WHERE p.name = u));
  IF n = 0 OR array_length(v_missing, 1) > 0 THEN
    RETURN json_build_object('missing', v_missing);
  END IF;

  -- Phase 1, in name order: count the attempt on each counter row (taking its lock, creating it if
  -- need be) and read its state; decide each policy on that locked state.
  FOR i IN 1 .. n LOOP
    SELECT * INTO pol FROM ratelimit_policies WHERE name = v_names[i];
    IF NOT FOUND THEN
      -- Deleted since the look-up above: roll back whatever this statement counted.
      RAISE EXCEPTION 'rate-limit policy % was deleted during the check', v_names[i] USING ERRCODE = '40001';
    END IF;
    v_pols[i] := pol;
    -- The limit in force and the key's next override boundary (see admit_ratelimit_check_any).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = pol.name AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
    v_lim[i] := coalesce(v_over, pol.quota);
    v_stop[i] := admit_ts_to_ms(v_next) - v_now;  -- NULL: no boundary ahead
    v_w := pol.window_ms;
    v_slot[i] := floor(v_now / v_w);
    v_ws[i] := v_slot[i] * v_w;
    v_prev[i] := 0;
    v_weight[i] := 0;
    IF pol.algorithm = 'sliding_window' THEN
      v_prev[i] := coalesce((SELECT c.consumed FROM ratelimit_counters c
                              WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i] - 1), 0);
      v_weight[i] := 1 - (v_now - v_ws[i]) / v_w;
    END IF;
    v_ws_ts := admit_ms_to_ts(v_ws[i]);
    IF pol.algorithm = 'token_bucket' THEN
      v_t := v_w / v_lim[i];
      IF p_cost = 0 THEN
        v_cur[i] := (SELECT c.tat FROM ratelimit_counters c WHERE c.policy = pol.name AND c.key = p_key AND c.slot = -1);
      ELSE
        INSERT INTO ratelimit_counters AS c
          (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
        VALUES (pol.name, p_key, -1, v_ws_ts, 0, 0, 1, 0, v_now, false, admit_ms_to_ts(greatest(v_now, v_ws[i] + v_w)))
        ON CONFLICT (policy, key, slot) DO UPDATE SET
          window_start = v_ws_ts,
          consumed = CASE WHEN c.window_start = v_ws_ts THEN c.consumed ELSE 0 END,
          admitted = CASE WHEN c.window_start = v_ws_ts THEN c.admitted ELSE 0 END,
          attempted = CASE WHEN c.window_start = v_ws_ts THEN c.attempted ELSE 0 END + 1,
          rejected = CASE WHEN c.window_start = v_ws_ts THEN c.rejected ELSE 0 END
        RETURNING c.tat INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_base := greatest(coalesce(v_cur[i], v_now), v_now);
      v_fits[i] := v_base + greatest(p_cost, 1) * v_t - v_now <= v_w + v_eps;
    ELSE
      IF p_cost = 0 THEN
        v_cur[i] := coalesce((SELECT c.consumed FROM ratelimit_counters c
                               WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i]), 0);
      ELSE
        INSERT INTO ratelimit_counters AS c
          (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
        VALUES (pol.name, p_key, v_slot[i], v_ws_ts, 0, 0, 1, 0, false,
                admit_ms_to_ts(v_ws[i] + v_w + greatest(v_w, pol.history_ms)))
        ON CONFLICT (policy, key, slot) DO UPDATE SET attempted = c.attempted + 1
        RETURNING c.consumed INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_fits[i] := v_cur[i] + greatest(p_cost, 1) + v_prev[i] * v_weight[i] <= v_lim[i];
    END IF;
    v_allowed := v_allowed AND v_fits[i];
  END LOOP;

  -- Phase 2: every row is locked; consume on all of them, or on none.
  FOR i IN 1 .. n LOOP
    pol := v_pols[i];
    v_w := pol.window_ms;
    v_l := v_lim[i];
    IF pol.algorithm = 'token_bucket' THEN
      v_t := v_w / v_l;
      IF p_cost > 0 THEN
        UPDATE ratelimit_counters c SET
          tat = CASE WHEN v_allowed THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END,
          consumed = c.consumed + CASE WHEN v_allowed THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed THEN 0 ELSE 1 END,
          last_allowed = v_allowed,
          expires_at = admit_ms_to_ts(greatest(
            CASE WHEN v_allowed THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END, v_ws[i] + v_w))
         WHERE c.policy = pol.name AND c.key = p_key AND c.slot = -1
        RETURNING c.tat INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_base := greatest(coalesce(v_cur[i], v_now), v_now);
      v_remaining := least(v_l, floor((v_w - (v_base - v_now) + v_eps) / v_t));
      v_reset := v_base - v_now;
    ELSE
      IF p_cost > 0 THEN
        UPDATE ratelimit_counters c SET
          consumed = c.consumed + CASE WHEN v_allowed THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed THEN 0 ELSE 1 END,
          last_allowed = v_allowed
         WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i]
        RETURNING c.consumed INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_remaining := floor(v_l - v_cur[i] - v_prev[i] * v_weight[i]);
      v_reset := v_ws[i] + v_w - v_now;
    END IF;
    IF pol.log AND p_cost > 0 THEN
      INSERT INTO ratelimit_log (at, policy, key, allowed, cost, info, expires_at)
      VALUES (p_now, pol.name, p_key, v_allowed, p_cost, p_info, p_now + pol.history_ms * interval '1 millisecond');
    END IF;
    -- This policy's own wait for this cost (it denied; for a peek, for one unit) and for one unit,
    -- never past its next override boundary.
    v_wait := NULL;
    IF NOT v_fits[i] THEN
      v_wait := admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, greatest(p_cost, 1), v_ws[i],
                  CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
                  CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END);
      -- least() skips NULLs: a NULL wait (a cost above the limit in force) stays NULL.
      IF v_wait IS NOT NULL THEN v_wait := least(v_wait, v_stop[i]); END IF;
    END IF;
    v_wait1 := 0;
    IF v_remaining < 1 THEN
      v_wait1 := least(admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, 1, v_ws[i],
                         CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
                         CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END), v_stop[i]);
    END IF;
    v_res[i] := json_build_object(
      'allowed', v_fits[i],
      'policy', pol.name,
      'key', p_key,
      'limit', v_l,
      'window_ms', pol.window_ms,
      'log', pol.log,
      'remaining', greatest(0, v_remaining)::bigint,
      'reset_ms', ceil(greatest(0, v_reset))::bigint,
      'retry_after_ms', ceil(v_wait)::bigint,
      'wait1_ms', ceil(v_wait1)::bigint,
      'timeout_ms', pol.timeout_ms,
      'on_unavailable', pol.on_unavailable);
  END LOOP;

  RETURN json_build_object(
    'allowed', v_allowed,
    'key', p_key,
    'results', (SELECT json_agg(v_res[array_position(v_names, q COLLATE "C")] ORDER BY ord)
                  FROM unnest(p_policies) WITH ORDINALITY AS t(q, ord)));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[], p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  n integer := cardinality(p_costs);
  v_res json[] := array_fill(NULL::json, ARRAY[n]);
  v_limit integer;
  v_over integer;
  v_next timestamptz;
  v_now bigint;
  v_ws bigint;
  v_end bigint;
  v_stop bigint;
  v_slot bigint;
  v_cons bigint;               -- the row's `consumed` as each item leaves it
  v_ok boolean;
  v_admitted integer := 0;
  v_left bigint;
  j integer;
  -- token bucket (admit_ratelimit_check_any's arithmetic, in numeric ms)
  v_nowx numeric;
  v_w numeric;
  v_t numeric;
  v_inc numeric;
  v_fits numeric;
  v_tat numeric;              -- the bucket's TAT as each item leaves it
  v_base numeric;
  v_rem numeric;
  v_wait numeric;
  v_wait1 numeric;
  v_ws_ts timestamptz;
  v_fresh boolean;            -- the row's counts belong to an earlier statistics window: they restart
  v_cost_ok bigint := 0;
  v_eps constant numeric := 0.000001;
  r ratelimit_counters;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND OR pol.algorithm NOT IN ('fixed_window', 'token_bucket') OR pol.log OR n = 1 OR EXISTS (SELECT 1 FROM unnest(p_costs) c WHERE c <= 0) THEN
    FOR j IN 1 .. n LOOP
      v_res[j] := admit_ratelimit_check(p_policy, p_key, p_costs[j], p_infos[j], p_lock_timeout_ms, p_now);
    END LOOP;
    RETURN v_res;
  END IF;
  -- As admit_ratelimit_check: the limit in force and the key's next override boundary, one look-up.
  SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
         min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
    INTO v_over, v_next
    FROM ratelimit_overrides o
   WHERE o.policy = p_policy AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  v_limit := coalesce(v_over, pol.quota);
  IF pol.algorithm = 'token_bucket' THEN
    -- As admit_ratelimit_check_any's token bucket, item by item on the row's TAT: admitted iff
    -- max(TAT, now) ≤ now + window − cost·T; then TAT := max(TAT, now) + cost·T. The statistics
    -- (consumed, admitted, …) restart when the aligned window has moved on.
    v_nowx := admit_ts_to_ms(p_now);
    v_w := pol.window_ms;
    v_t := v_w / v_limit;
    v_ws_ts := admit_ms_to_ts(floor(v_nowx / v_w) * v_w);
    SELECT * INTO r FROM ratelimit_counters c
     WHERE c.policy = p_policy AND c.key = p_key AND c.slot = -1 FOR NO KEY UPDATE;
    IF NOT FOUND THEN
      INSERT INTO ratelimit_counters
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
      VALUES (p_policy, p_key, -1, v_ws_ts, 0, 0, 0, 0, v_nowx, false, admit_ms_to_ts(admit_ts_to_ms(v_ws_ts) + v_w))
      ON CONFLICT (policy, key, slot) DO NOTHING;
      SELECT * INTO r FROM ratelimit_counters c
       WHERE c.policy = p_policy AND c.key = p_key AND c.slot = -1 FOR NO KEY UPDATE;
    END IF;
    v_fresh := r.window_start <> v_ws_ts;
    v_tat := r.tat;
    FOR j IN 1 .. n LOOP
      v_inc := p_costs[j] * v_t;
      v_fits := v_nowx + v_w + v_eps - v_inc;
      v_ok := greatest(v_tat, v_nowx) <= v_fits;
      IF v_ok THEN
        v_tat := greatest(v_tat, v_nowx) + v_inc;
        v_admitted := v_admitted + 1;
        v_cost_ok := v_cost_ok + p_costs[j];
      END IF;
      v_base := greatest(v_tat, v_nowx);
      v_rem := least(v_limit, floor((v_w - (v_base - v_nowx) + v_eps) / v_t));
      v_wait := CASE WHEN NOT v_ok
                     THEN admit_ratelimit_wait_ms('token_bucket', v_limit, v_w, v_nowx, p_costs[j], 0, 0, 0, v_tat) END;
      v_wait1 := CASE WHEN v_rem >= 1 THEN 0
                      ELSE admit_ratelimit_wait_ms('token_bucket', v_limit, v_w, v_nowx, 1, 0, 0, 0, v_tat) END;
      IF v_next IS NOT NULL THEN
        IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_nowx); END IF;
        v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_nowx);
      END IF;
      v_res[j] := json_build_object(
        'allowed', v_ok,
        'policy', p_policy,
        'key', p_key,
        'limit', v_limit,
        'window_ms', pol.window_ms,
        'log', false,
        'remaining', greatest(0, v_rem)::bigint,
        'reset_ms', ceil(greatest(0, v_base - v_nowx))::bigint,
        'retry_after_ms', ceil(v_wait)::bigint,
        'wait1_ms', ceil(v_wait1)::bigint,
        'timeout_ms', pol.timeout_ms,
        'on_unavailable', pol.on_unavailable);
    END LOOP;
    UPDATE ratelimit_counters
       SET tat = v_tat,
           window_start = v_ws_ts,
           consumed = CASE WHEN v_fresh THEN 0 ELSE consumed END + v_cost_ok,
           admitted = CASE WHEN v_fresh THEN 0 ELSE admitted END + v_admitted,
           attempted = CASE WHEN v_fresh THEN 0 ELSE attempted END + n,
           rejected = CASE WHEN v_fresh THEN 0 ELSE rejected END + (n - v_admitted),
           last_allowed = v_ok,
           -- As the one check: the row outlives the bucket's TAT, so the sweeper never hands the key a full one.
           expires_at = admit_ms_to_ts(greatest(v_tat, admit_ts_to_ms(v_ws_ts) + v_w))
     WHERE policy = p_policy AND key = p_key AND slot = -1;
    RETURN v_res;
  END IF;
  v_now := floor(extract(epoch FROM p_now) * 1000);
  v_ws := v_now / pol.window_ms * pol.window_ms;
  v_slot := v_ws / pol.window_ms;
  v_end := v_ws + pol.window_ms - v_now;
  v_stop := v_end;
  IF v_next IS NOT NULL THEN
    v_stop := least(v_end, ceil(admit_ts_to_ms(v_next) - admit_ts_to_ms(p_now))::bigint);
  END IF;
  -- The counter row, locked (created empty first if this window has none yet).
  SELECT c.consumed INTO v_cons FROM ratelimit_counters c
   WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    INSERT INTO ratelimit_counters
      (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
    VALUES (p_policy, p_key, v_slot, 'epoch'::timestamptz + v_ws * interval '1 millisecond', 0, 0, 0, 0, false,
            'epoch'::timestamptz + (v_ws + pol.window_ms + greatest(pol.window_ms, pol.history_ms)) * interval '1 millisecond')
    ON CONFLICT (policy, key, slot) DO NOTHING;
    SELECT c.consumed INTO v_cons FROM ratelimit_counters c
     WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot FOR NO KEY UPDATE;
  END IF;
  FOR j IN 1 .. n LOOP
    -- admit_ratelimit_check: admitted iff consumed ≤ limit − cost.
    v_ok := v_cons <= v_limit - p_costs[j];
    IF v_ok THEN
      v_cons := v_cons + p_costs[j];
      v_admitted := v_admitted + 1;
    END IF;
    v_left := v_limit - v_cons;
    v_res[j] := json_build_object(
      'allowed', v_ok,
      'policy', p_policy,
      'key', p_key,
      'limit', v_limit,
      'window_ms', pol.window_ms,
      'log', false,
      'remaining', greatest(0, v_left),
      'reset_ms', v_end,
      'retry_after_ms', CASE WHEN NOT v_ok AND p_costs[j] <= v_limit THEN v_stop END,
      'wait1_ms', CASE WHEN v_left >= 1 THEN 0 ELSE v_stop END,
      'timeout_ms', pol.timeout_ms,
      'on_unavailable', pol.on_unavailable);
  END LOOP;
  UPDATE ratelimit_counters
     SET consumed = v_cons,
         admitted = admitted + v_admitted,
         attempted = attempted + n,
         rejected = rejected + (n - v_admitted),
         last_allowed = v_ok
   WHERE policy = p_policy AND key = p_key AND slot = v_slot;
  RETURN v_res;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_delete_overrides(p_policy text, p_key text, p_from timestamp with time zone, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  DELETE FROM ratelimit_overrides
   WHERE policy = p_policy AND key = p_key AND (p_from IS NULL OR lower(valid) = p_from);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_delete_policy(p_name text, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  DELETE FROM ratelimit_policies WHERE name = p_name;
  IF NOT FOUND THEN RETURN false; END IF;
  DELETE FROM ratelimit_counters WHERE policy = p_name;
  RETURN true;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_frame(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone, OUT o_limit integer, OUT o_w numeric, OUT o_slot bigint, OUT o_ws numeric, OUT o_prev numeric, OUT o_weight numeric)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(p_now);
BEGIN
  o_limit := coalesce(
    (SELECT o.quota FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid @> p_now),
    p_pol.quota);
  o_w := p_pol.window_ms;
  o_slot := floor(v_now / o_w);
  o_ws := o_slot * o_w;
  o_prev := 0;
  o_weight := 0;
  IF p_pol.algorithm = 'sliding_window' THEN
    o_prev := coalesce((SELECT c.consumed FROM ratelimit_counters c
                         WHERE c.policy = p_pol.name AND c.key = p_key AND c.slot = o_slot - 1), 0);
    o_weight := 1 - (v_now - o_ws) / o_w;
  END IF;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_overrides(p_policy text, p_key text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid)), '[]'::json)
       FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key)
  END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_policies(p_after text, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) p
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_policy_overrides(p_policy text, p_after_key text, p_after_start timestamp with time zone, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY o.key, lower(o.valid)), '[]'::json)
       FROM (SELECT * FROM ratelimit_overrides
              WHERE policy = p_policy
                AND (key, lower(valid)) > (coalesce(p_after_key, ''), coalesce(p_after_start, '-infinity'))
              ORDER BY key, lower(valid) LIMIT p_limit + 1) o)
  END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_override_json(o ratelimit_overrides)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'policy', o.policy, 'key', o.key, 'limit', o.quota,
    'valid_from', admit_rfc3339(lower(o.valid)), 'valid_to', admit_rfc3339(upper(o.valid)))
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_json(p ratelimit_policies)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'name', p.name, 'algorithm', p.algorithm, 'limit', p.quota, 'window_ms', p.window_ms,
    'log', p.log, 'history_ms', p.history_ms, 'timeout_ms', p.timeout_ms, 'on_unavailable', p.on_unavailable,
    'created_at', admit_rfc3339(p.created_at), 'updated_at', admit_rfc3339(p.updated_at))
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_keys(p_policy text, p_span text, p_order text, p_after_count bigint, p_after_key text, p_limit integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  pol ratelimit_policies;
  v_now numeric := admit_ts_to_ms(p_now);
  v_from numeric;
  v_ws numeric;
  v_items json;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_ws := floor(v_now / pol.window_ms) * pol.window_ms;
  -- The windows counted: the current one, or every window that overlaps [now − 1 h, now].
  v_from := CASE WHEN p_span = '1h' THEN least(v_ws, v_now - 3600000) ELSE v_ws END;
  WITH per_key AS (
    SELECT c.key, sum(c.admitted)::bigint AS admitted, sum(c.attempted)::bigint AS attempted,
           sum(c.rejected)::bigint AS rejected, sum(c.consumed)::bigint AS consumed
      FROM ratelimit_counters c
     WHERE c.policy = p_policy
       AND CASE WHEN pol.algorithm = 'token_bucket'
                THEN c.slot = -1 AND admit_ts_to_ms(c.window_start) + pol.window_ms > v_from
                ELSE c.slot >= floor(v_from / pol.window_ms) AND c.slot <= v_ws / pol.window_ms END
     GROUP BY c.key
  ), ranked AS (
    SELECT k.*, CASE WHEN p_order = 'used' THEN k.consumed ELSE k.rejected END AS n FROM per_key k
  ), page AS (
    SELECT * FROM ranked r
     WHERE r.n > 0
       AND (p_after_key IS NULL OR r.n < p_after_count OR (r.n = p_after_count AND r.key COLLATE "C" > p_after_key COLLATE "C"))
     ORDER BY r.n DESC, r.key COLLATE "C"
     LIMIT p_limit + 1
  )
  SELECT coalesce(json_agg(json_build_object('key', key, 'admitted', admitted, 'attempted', attempted,
                                             'rejected', rejected, 'consumed', consumed)
                           ORDER BY n DESC, key COLLATE "C"), '[]'::json)
    INTO v_items FROM page;
  RETURN json_build_object(
    'policy', p_policy, 'window', p_span, 'order', p_order,
    'from', admit_rfc3339(admit_ms_to_ts(v_from)),
    'window_end', admit_rfc3339(admit_ms_to_ts(v_ws + pol.window_ms)),
    'items', v_items);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_minutes(p_policy text, p_minutes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(json_build_object(
              'minute', admit_rfc3339(m.minute), 'allowed', m.allowed, 'denied', m.denied,
              'unenforced', m.unenforced, 'unavailable', m.unavailable)
            ORDER BY m.minute), '[]'::json)
       FROM (SELECT minute,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'allowed'), 0)::bigint AS allowed,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'denied'), 0)::bigint AS denied,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unenforced'), 0)::bigint AS unenforced,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unavailable'), 0)::bigint AS unavailable
               FROM metric_minutes
              WHERE name = 'admit_ratelimit_decisions_total' AND labels->>'policy' = p_policy
                AND minute >= date_trunc('minute', now()) - (p_minutes - 1) * interval '1 minute'
              GROUP BY minute) m)
  END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_put_override(p_policy text, p_key text, p_limit integer, p_from timestamp with time zone, p_to timestamp with time zone, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_valid tstzrange := tstzrange(p_from, p_to, '[)');
  v_row ratelimit_overrides;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- One writer per (policy, key) at a time: concurrent inserts checked by the exclusion constraint
  -- wait on each other's tuples and can deadlock (000063).
  PERFORM pg_advisory_xact_lock(admit_fnv64('ratelimit_override/' || p_policy || '/' || p_key));
  -- The policy stays until this override commits (a concurrent DELETE waits, then takes it along);
  -- one being deleted right now is waited for, and then it is not found.
  PERFORM 1 FROM ratelimit_policies WHERE name = p_policy FOR KEY SHARE;
  IF NOT FOUND THEN RETURN json_build_object('status', 'no_policy'); END IF;
  UPDATE ratelimit_overrides SET quota = p_limit
   WHERE policy = p_policy AND key = p_key AND valid = v_valid
  RETURNING * INTO v_row;
  IF FOUND THEN
    RETURN json_build_object('status', 'updated', 'override', admit_ratelimit_override_json(v_row));
  END IF;
  BEGIN
    INSERT INTO ratelimit_overrides (policy, key, quota, valid) VALUES (p_policy, p_key, p_limit, v_valid)
    RETURNING * INTO v_row;
  EXCEPTION WHEN exclusion_violation THEN
    -- The constraint waited for the other writer to commit; this statement's snapshot sees it.
    UPDATE ratelimit_overrides SET quota = p_limit
     WHERE policy = p_policy AND key = p_key AND valid = v_valid
    RETURNING * INTO v_row;
    IF FOUND THEN
      RETURN json_build_object('status', 'updated', 'override', admit_ratelimit_override_json(v_row));
    END IF;
    RETURN json_build_object('status', 'conflict', 'conflicts',
      (SELECT json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid))
         FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key AND o.valid && v_valid));
  END;
  RETURN json_build_object('status', 'created', 'override', admit_ratelimit_override_json(v_row));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_put_policy(p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint, p_timeout_ms integer DEFAULT 5000, p_on_unavailable text DEFAULT 'deny'::text, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO ratelimit_policies (name, algorithm, quota, window_ms, log, history_ms, timeout_ms, on_unavailable)
    VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms, p_timeout_ms, p_on_unavailable)
    ON CONFLICT (name) DO NOTHING
    RETURNING * INTO v_new;
    IF FOUND THEN
      RETURN json_build_object('created', true, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
    SELECT * INTO v_old FROM ratelimit_policies WHERE name = p_name FOR UPDATE;
    IF FOUND THEN
      UPDATE ratelimit_policies
         SET algorithm = p_algorithm, quota = p_limit, window_ms = p_window_ms,
             log = p_log, history_ms = p_history_ms, timeout_ms = p_timeout_ms,
             on_unavailable = p_on_unavailable, updated_at = now()
       WHERE name = p_name
      RETURNING * INTO v_new;
      IF v_old.algorithm <> v_new.algorithm OR v_old.window_ms <> v_new.window_ms THEN
        DELETE FROM ratelimit_counters WHERE policy = p_name;
      END IF;
      RETURN json_build_object('created', false, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
  END LOOP;
  RAISE EXCEPTION 'policy % was created and deleted concurrently three times', p_name USING ERRCODE = '40001';
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_refund(p_policy text, p_key text, p_cost integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric;
  v_t numeric;
  v_slot bigint;
  v_ws numeric;
  v_prev numeric;
  v_weight numeric;
  v_before numeric;
  v_refunded numeric := 0;
  v_remaining numeric;
  v_reset numeric;
  r ratelimit_counters;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT * INTO v_limit, v_w, v_slot, v_ws, v_prev, v_weight FROM admit_ratelimit_frame(pol, p_key, p_now);
  IF pol.algorithm = 'token_bucket' THEN
    v_t := v_w / v_limit;
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1 FOR UPDATE;
    IF FOUND AND r.tat > v_now THEN
      v_before := r.tat;
      UPDATE ratelimit_counters SET tat = greatest(v_now, tat - p_cost * v_t),
             consumed = greatest(0, consumed - p_cost)
       WHERE policy = p_policy AND key = p_key AND slot = -1
      RETURNING * INTO r;
      v_refunded := round((v_before - r.tat) / v_t);
    END IF;
    v_remaining := least(v_limit, floor((v_w - (greatest(coalesce(r.tat, v_now), v_now) - v_now) + 0.000001) / v_t));
    v_reset := greatest(coalesce(r.tat, v_now), v_now) - v_now;
  ELSE
    -- FOR UPDATE reads the latest committed version and holds it until the update below.
    SELECT consumed INTO v_before FROM ratelimit_counters
     WHERE policy = p_policy AND key = p_key AND slot = v_slot FOR UPDATE;
    IF FOUND THEN
      UPDATE ratelimit_counters SET consumed = greatest(0, consumed - p_cost)
       WHERE policy = p_policy AND key = p_key AND slot = v_slot
      RETURNING * INTO r;
      v_refunded := v_before - r.consumed;
    END IF;
    v_remaining := floor(v_limit - coalesce(r.consumed, 0) - v_prev * v_weight);
    v_reset := v_ws + v_w - v_now;
  END IF;
  RETURN json_build_object(
    'policy', p_policy, 'key', p_key, 'limit', v_limit, 'window_ms', pol.window_ms,
    'remaining', greatest(0, v_remaining)::bigint, 'reset_ms', ceil(greatest(0, v_reset))::bigint,
    'refunded', v_refunded::bigint);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_usage(p_policy text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_slot bigint;
  v_ws timestamptz;
  r ratelimit_counters;
  v_history json;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT f.o_limit, f.o_slot, admit_ms_to_ts(f.o_ws) INTO v_limit, v_slot, v_ws FROM admit_ratelimit_frame(pol, p_key, p_now) f;
  IF pol.algorithm = 'token_bucket' THEN
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1 AND window_start = v_ws;
  ELSE
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = v_slot;
  END IF;
  IF p_from IS NOT NULL AND pol.algorithm <> 'token_bucket' THEN
    SELECT coalesce(json_agg(json_build_object(
             'window_start', admit_rfc3339(h.window_start),
             'window_end', admit_rfc3339(h.window_start + pol.window_ms * interval '1 millisecond'),
             'admitted', h.admitted, 'attempted', h.attempted, 'rejected', h.rejected, 'consumed', h.consumed)
           ORDER BY h.slot), '[]'::json)
      INTO v_history
      FROM (SELECT * FROM ratelimit_counters
             WHERE policy = p_policy AND key = p_key
               AND slot >= ceil(admit_ts_to_ms(p_from) / pol.window_ms)
               AND slot < ceil(admit_ts_to_ms(p_to) / pol.window_ms)
             ORDER BY slot LIMIT 1000) h;
  END IF;
  RETURN json_build_object(
    'policy', p_policy, 'key', p_key, 'algorithm', pol.algorithm,
    'limit', v_limit, 'window_ms', pol.window_ms,
    'window_start', admit_rfc3339(v_ws),
    'window_end', admit_rfc3339(v_ws + pol.window_ms * interval '1 millisecond'),
    'admitted', coalesce(r.admitted, 0), 'attempted', coalesce(r.attempted, 0),
    'rejected', coalesce(r.rejected, 0), 'consumed', coalesce(r.consumed, 0),
    'windows', v_history);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_ratelimit_wait_ms(p_algorithm text, p_limit integer, p_window numeric, p_now numeric, p_cost integer, p_window_start numeric, p_cur numeric, p_prev numeric, p_tat numeric)
 RETURNS numeric
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  f numeric;
  t numeric;
BEGIN
  IF p_cost > p_limit THEN RETURN NULL; END IF;
  IF p_algorithm = 'token_bucket' THEN
    t := greatest(coalesce(p_tat, p_now), p_now) + p_cost * (p_window / p_limit) - p_window;
    RETURN greatest(0, t - p_now);
  END IF;
  f := (p_now - p_window_start) / p_window;
  IF p_algorithm = 'fixed_window' THEN
    RETURN CASE WHEN p_cur + p_cost <= p_limit THEN 0 ELSE p_window_start + p_window - p_now END;
  END IF;
  IF p_cur + p_cost + p_prev * (1 - f) <= p_limit THEN RETURN 0; END IF;
  IF p_cur + p_cost <= p_limit THEN
    t := p_window_start + p_window * (1 - (p_limit - p_cur - p_cost) / p_prev);
  ELSE
    t := p_window_start + p_window + p_window * greatest(0, 1 - (p_limit - p_cost) / p_cur);
  END IF;
  RETURN greatest(0, t - p_now);
END
$function$;

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

CREATE OR REPLACE FUNCTION public.admit_rfc3339(t timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE STRICT
AS $function$
  SELECT regexp_replace(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0+$', '') || 'Z'
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_claims_changed(p_delta jsonb)
 RETURNS void
 LANGUAGE sql
AS $function$
  WITH d AS (
    SELECT e ->> 'name' AS name, (e ->> 'slot')::integer AS slot, sum((e ->> 'n')::integer)::integer AS n
      FROM jsonb_array_elements(p_delta) e GROUP BY 1, 2 HAVING sum((e ->> 'n')::integer) <> 0
  ), counted AS (
    UPDATE semaphores s SET in_use = s.in_use + x.n
      FROM (SELECT name, sum(n)::integer AS n FROM d GROUP BY name) x
     WHERE s.name = x.name AND x.n <> 0
    RETURNING 1
  ), taken AS (
    DELETE FROM semaphore_free_slots f USING d WHERE d.n > 0 AND f.name = d.name AND f.slot = d.slot
    RETURNING 1
  ), freed AS (
    INSERT INTO semaphore_free_slots (name, slot)
    SELECT d.name, d.slot FROM d JOIN semaphores s ON s.name = d.name
     WHERE d.n < 0 AND d.slot < s.permits
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  SELECT FROM (SELECT count(*) FROM counted) a, (SELECT count(*) FROM taken) b, (SELECT count(*) FROM freed) c
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_json(p_name text, p_holders integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_semaphore_json(p_name, p_holders, NULL)
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_json(p_name text, p_holders integer, p_after_slot integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_list(p_after text, p_limit integer, p_holders integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_page(array_agg(admit_semaphore_json(s.name, p_holders) ORDER BY s.name), p_limit, p_max_bytes)
    FROM (SELECT name FROM semaphores
           WHERE name > coalesce(p_after, '')
           ORDER BY name LIMIT p_limit + 1) s
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_put(p_lock_key bigint, p_name text, p_permits integer, p_default_ttl_ms integer, p_create_only boolean, p_lock_timeout_ms integer)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_created boolean;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM pg_advisory_xact_lock(p_lock_key);
  IF p_create_only THEN
    INSERT INTO semaphores (name, permits, default_ttl_ms)
    VALUES (p_name, p_permits, coalesce(p_default_ttl_ms, 60000))
    ON CONFLICT (name) DO NOTHING;
    v_created := FOUND;
  ELSE
    INSERT INTO semaphores AS s (name, permits, default_ttl_ms)
    VALUES (p_name, p_permits, coalesce(p_default_ttl_ms, 60000))
    ON CONFLICT (name) DO UPDATE
      SET permits = excluded.permits, default_ttl_ms = coalesce(p_default_ttl_ms, s.default_ttl_ms), updated_at = now()
    RETURNING (xmax = 0) INTO v_created;
  END IF;
  RETURN json_build_object('created', v_created, 'semaphore', admit_semaphore_state(p_name));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphore_state(p_name text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_semaphore_json(p_name, 1000, NULL)
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphores_resized()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_old integer := CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.permits END;
BEGIN
  DELETE FROM semaphore_free_slots WHERE name = NEW.name AND slot >= NEW.permits;
  INSERT INTO semaphore_free_slots (name, slot)
  SELECT NEW.name, i FROM generate_series(v_old, NEW.permits - 1) i
   WHERE NOT EXISTS (SELECT 1 FROM permits p
                      WHERE p.kind = 'semaphore' AND p.name = NEW.name AND p.slot = i
                        AND p.released_at IS NULL AND p.timed_out_at IS NULL)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_semaphores_sized()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.in_use := (SELECT count(*) FROM permits p
                    WHERE p.kind = 'semaphore' AND p.name = NEW.name AND p.released_at IS NULL AND p.timed_out_at IS NULL);
  END IF;
  RETURN NEW;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep()
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  fn record;
  n integer;
  report jsonb := '{}'::jsonb;
BEGIN
  FOR fn IN
    SELECT p.proname
    FROM pg_proc p
    JOIN pg_namespace ns ON ns.oid = p.pronamespace
    WHERE p.proname LIKE 'admit\_sweep\_%' AND p.pronargs = 0 AND ns.nspname = current_schema()
    ORDER BY p.proname
  LOOP
    EXECUTE format('SELECT %I()', fn.proname) INTO n;
    report := report || jsonb_build_object(substr(fn.proname, length('admit_sweep_') + 1), coalesce(n, 0));
  END LOOP;
  RETURN report::json;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_audit()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_audit integer;
  v_secrets integer;
BEGIN
  WITH old AS (
    SELECT id FROM admit_audit WHERE expires_at < now() ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED
  )
  DELETE FROM admit_audit a USING old WHERE a.id = old.id;
  GET DIAGNOSTICS v_audit = ROW_COUNT;
  WITH old AS (
    SELECT hash FROM admit_key_secrets WHERE expires_at < now() - interval '1 day' LIMIT 10000 FOR UPDATE SKIP LOCKED
  )
  DELETE FROM admit_key_secrets s USING old WHERE s.hash = old.hash;
  GET DIAGNOSTICS v_secrets = ROW_COUNT;
  RETURN v_audit + v_secrets;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_batch(p_name text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM admit_sweepers() s WHERE s = p_name) THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT %I()', 'admit_sweep_' || p_name) INTO n;
  RETURN coalesce(n, 0);
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_idempotency()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    DELETE FROM idempotency_keys
     WHERE key IN (SELECT key FROM idempotency_keys WHERE expires_at <= now()
                    ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_inventory()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_released integer;
  v_marked integer;
BEGIN
  EXECUTE $q$
    WITH due AS (
      SELECT id FROM inventory_tokens
       WHERE held_until <= clock_timestamp()
       ORDER BY held_until
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_tokens t SET booking_id = NULL, held_until = NULL FROM due WHERE t.id = due.id
  $q$;
  GET DIAGNOSTICS v_released = ROW_COUNT;

  EXECUTE $q$
    WITH done AS (
      SELECT id FROM inventory_bookings
       WHERE status = 'held' AND expires_at <= clock_timestamp()
       ORDER BY expires_at
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    UPDATE inventory_bookings b SET status = 'expired' FROM done WHERE b.id = done.id
  $q$;
  GET DIAGNOSTICS v_marked = ROW_COUNT;
  RETURN v_released + v_marked;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_inventory_history()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_cutoff date := (now() AT TIME ZONE 'UTC')::date - 30;
  v_tokens integer;
  v_bookings integer;
  v_nights integer;
BEGIN
  EXECUTE $q$
    WITH old AS (
      SELECT t.id
        FROM (SELECT item, night FROM inventory_nights WHERE night < $1 ORDER BY night LIMIT 1000) n
        JOIN inventory_tokens t ON t.item = n.item AND t.night = n.night
       LIMIT 10000
         FOR UPDATE OF t SKIP LOCKED
    )
    DELETE FROM inventory_tokens t USING old WHERE t.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_tokens = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT b.id FROM inventory_bookings b
       WHERE b.check_out < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.booking_id = b.id)
       ORDER BY b.check_out
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_bookings b USING old WHERE b.id = old.id
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_bookings = ROW_COUNT;

  EXECUTE $q$
    WITH old AS (
      SELECT n.item, n.night FROM inventory_nights n
       WHERE n.night < $1
         AND NOT EXISTS (SELECT 1 FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night)
       ORDER BY n.night
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM inventory_nights n USING old WHERE n.item = old.item AND n.night = old.night
  $q$ USING v_cutoff;
  GET DIAGNOSTICS v_nights = ROW_COUNT;

  RETURN v_tokens + v_bookings + v_nights;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_metrics()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n integer;
BEGIN
  EXECUTE $q$
    WITH moved AS (
      DELETE FROM metric_minutes
       WHERE ctid = ANY (ARRAY(SELECT ctid FROM metric_minutes WHERE minute < now() - interval '25 hours'
                                ORDER BY minute LIMIT 10000 FOR UPDATE SKIP LOCKED))
      RETURNING name, labels, value
    ), summed AS (
      SELECT name, labels, sum(value)::bigint AS value FROM moved GROUP BY name, labels
    )
    INSERT INTO metric_totals AS t (name, labels, value)
    SELECT name, labels, value FROM summed ORDER BY name, labels
    ON CONFLICT (name, labels) DO UPDATE SET value = t.value + EXCLUDED.value
  $q$;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_permits()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  k record;
  n integer := 0;
  d integer;
BEGIN
  FOR k IN
    SELECT DISTINCT kind, name FROM (
      SELECT kind, name FROM permits
       WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at <= clock_timestamp()
       ORDER BY expires_at LIMIT 500) due
  LOOP
    IF pg_try_advisory_xact_lock(admit_fnv64(k.kind || '/' || k.name)) THEN
      n := n + admit_permits_time_out(k.kind, k.name, clock_timestamp());
    END IF;
  END LOOP;

  EXECUTE $q$
    WITH old AS (
      SELECT id FROM permits
       WHERE (released_at IS NOT NULL OR timed_out_at IS NOT NULL)
         AND coalesce(released_at, timed_out_at) < now() - interval '30 days'
       LIMIT 10000
         FOR UPDATE SKIP LOCKED
    )
    DELETE FROM permits p USING old WHERE p.id = old.id
  $q$;
  GET DIAGNOSTICS d = ROW_COUNT;
  RETURN n + d;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_ratelimits()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n_counters integer;
  n_log integer;
BEGIN
  -- SKIP LOCKED: a row a check holds right now is left for the next sweep, never waited for.
  EXECUTE $q$
    DELETE FROM ratelimit_counters
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM ratelimit_counters WHERE expires_at <= now()
                              LIMIT 10000 FOR UPDATE SKIP LOCKED))
       AND expires_at <= now()
  $q$;
  GET DIAGNOSTICS n_counters = ROW_COUNT;
  EXECUTE $q$
    DELETE FROM ratelimit_log
     WHERE id = ANY (ARRAY(SELECT id FROM ratelimit_log WHERE expires_at <= now() ORDER BY expires_at LIMIT 10000))
  $q$;
  GET DIAGNOSTICS n_log = ROW_COUNT;
  RETURN n_counters + n_log;
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_webhook_events()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    DELETE FROM webhook_events
     WHERE id IN (SELECT id FROM webhook_events
                   WHERE processed_at IS NOT NULL AND processed_at < now() - interval '7 days'
                   ORDER BY processed_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweep_webhook_secrets()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    UPDATE webhook_sources SET previous_secret = NULL, previous_secret_expires_at = NULL
     WHERE source IN (SELECT source FROM webhook_sources WHERE previous_secret_expires_at <= now()
                       ORDER BY source LIMIT 1000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;

CREATE OR REPLACE FUNCTION public.admit_sweepers()
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT substr(p.proname, length('admit_sweep_') + 1)
    FROM pg_proc p
    JOIN pg_namespace ns ON ns.oid = p.pronamespace
   WHERE p.proname LIKE 'admit\_sweep\_%' AND p.pronargs = 0 AND ns.nspname = current_schema()
   ORDER BY p.proname
$function$;

CREATE OR REPLACE FUNCTION public.admit_ts_to_ms(t timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$
  SELECT extract(epoch FROM t) * 1000
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_ack(p_source text, p_id uuid, p_receipt uuid)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  e webhook_events;
BEGIN
  -- Lock first: a concurrent ack or claim of the same event is waited for, and FOR UPDATE then reads
  -- the version it committed.
  SELECT * INTO e FROM webhook_events WHERE id = p_id AND source = p_source FOR UPDATE;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF e.claim_receipt = p_receipt AND e.processed_at IS NOT NULL THEN
    RETURN admit_webhook_event_json(e);
  END IF;
  IF e.claim_receipt = p_receipt AND e.claim_expires_at > clock_timestamp() THEN
    UPDATE webhook_events SET processed_at = now(), claim_expires_at = NULL WHERE id = p_id RETURNING * INTO e;
    RETURN admit_webhook_event_json(e);
  END IF;
  RETURN json_build_object(
    'status', 'not_current',
    'state', CASE WHEN e.processed_at IS NOT NULL THEN 'processed'
                  WHEN e.claim_receipt = p_receipt THEN 'expired'
                  WHEN e.claim_receipt IS NOT NULL THEN 'superseded'
                  ELSE 'unclaimed' END,
    'claim_expires_at', admit_rfc3339(e.claim_expires_at));
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_claim(p_source text, p_limit integer, p_visibility_ms integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
AS $function$
  WITH picked AS (
    SELECT e.id, e.seq, octet_length(e.payload::text) AS size FROM webhook_events e
     WHERE e.source = p_source AND e.processed_at IS NULL
       AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= clock_timestamp())
       AND (e.ordering_value IS NULL OR NOT EXISTS (
             SELECT 1 FROM webhook_events o
              WHERE o.source = e.source AND o.ordering_value = e.ordering_value AND o.id <> e.id
                AND o.processed_at IS NULL
                AND (o.seq < e.seq OR o.claim_expires_at > clock_timestamp())))
     ORDER BY e.seq
     LIMIT p_limit
     FOR UPDATE OF e SKIP LOCKED
  ), kept AS (
    SELECT id FROM (SELECT id, row_number() OVER (ORDER BY seq) AS n, sum(size) OVER (ORDER BY seq) AS upto FROM picked) x
     WHERE n = 1 OR upto <= p_max_bytes
  ), claimed AS (
    UPDATE webhook_events e
       SET claim_expires_at = clock_timestamp() + make_interval(secs => p_visibility_ms / 1000.0),
           claims = e.claims + 1,
           claim_receipt = gen_random_uuid()
      FROM kept WHERE e.id = kept.id
    RETURNING e.*
  )
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE json_build_object('events', coalesce(
           (SELECT json_agg(json_build_object('id', c.id, 'webhook_id', c.webhook_id, 'event_type', c.event_type,
                                              'payload', c.payload,
                                              'ordering_value', c.ordering_value,
                                              'received_at', admit_rfc3339(c.received_at),
                                              'claim_expires_at', admit_rfc3339(c.claim_expires_at),
                                              'receipt', c.claim_receipt)
                            ORDER BY c.seq) FROM claimed c), '[]'::json)) END
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_event_json(e webhook_events)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'id', e.id,
    'webhook_id', e.webhook_id,
    'event_type', e.event_type,
    'payload', e.payload,
    'status', CASE WHEN e.processed_at IS NOT NULL THEN 'processed'
                   WHEN e.claim_expires_at > now() THEN 'claimed' ELSE 'received' END,
    'ordering_value', e.ordering_value,
    'webhook_timestamp', admit_rfc3339(e.webhook_timestamp),
    'received_at', admit_rfc3339(e.received_at),
    'claim_expires_at', admit_rfc3339(e.claim_expires_at),
    'claims', e.claims,
    'processed_at', admit_rfc3339(e.processed_at))
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_get_source(p_source text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT admit_webhook_source_json(s) FROM webhook_sources s WHERE s.source = p_source
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_list(p_source text, p_status text, p_after bigint, p_limit integer, p_max_bytes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM webhook_sources WHERE source = p_source) THEN NULL
         ELSE admit_page(array_agg(json_build_object('seq', e.seq, 'event', admit_webhook_event_json(e)) ORDER BY e.seq), p_limit, p_max_bytes) END
    FROM (SELECT * FROM webhook_events
           WHERE source = p_source AND seq > coalesce(p_after, 0)
             AND CASE p_status
                   WHEN 'processed' THEN processed_at IS NOT NULL
                   WHEN 'claimed' THEN processed_at IS NULL AND claim_expires_at > now()
                   WHEN 'received' THEN processed_at IS NULL AND (claim_expires_at IS NULL OR claim_expires_at <= now())
                   ELSE true END
           ORDER BY seq LIMIT p_limit + 1) e
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_list_sources(p_after text, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(admit_webhook_source_json(s) ORDER BY s.source), '[]'::json)
    FROM (SELECT * FROM webhook_sources
           WHERE source > coalesce(p_after, '')
           ORDER BY source LIMIT p_limit + 1) s
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_put_source(p_source text, p_scheme text, p_secret text, p_previous_secret_ttl_ms bigint, p_tolerance_s integer, p_ordering_key text, p_hmac jsonb, p_replay_window_s integer)
 RETURNS json
 LANGUAGE sql
AS $function$
  INSERT INTO webhook_sources AS s (source, scheme, secret, tolerance_s, ordering_key, hmac, replay_window_s)
  VALUES (p_source, p_scheme, p_secret, p_tolerance_s, p_ordering_key, p_hmac, p_replay_window_s)
  ON CONFLICT (source) DO UPDATE
     SET scheme = excluded.scheme, secret = excluded.secret, tolerance_s = excluded.tolerance_s,
         ordering_key = excluded.ordering_key, hmac = excluded.hmac, replay_window_s = excluded.replay_window_s,
         updated_at = now(),
         previous_secret = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN CASE WHEN p_previous_secret_ttl_ms IS NOT NULL THEN s.secret END
           WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END,
         previous_secret_expires_at = CASE
           WHEN s.scheme <> excluded.scheme OR coalesce(p_previous_secret_ttl_ms, -1) = 0 THEN NULL
           WHEN s.secret <> excluded.secret THEN now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0)
           WHEN s.previous_secret_expires_at > now() THEN
             coalesce(now() + make_interval(secs => p_previous_secret_ttl_ms / 1000.0), s.previous_secret_expires_at) END
  RETURNING json_build_object('created', s.xmax = 0, 'source', admit_webhook_source_json(s))
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_receive(p_source text, p_webhook_id text, p_timestamp bigint, p_event_type text, p_payload text, p_ordering_value text, p_lock_key bigint, p_lock_timeout_ms integer, p_earlier_ids text[], p_signed_sha256 text, p_signed_lock_key bigint)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_id uuid;
  v_window integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  IF p_signed_sha256 IS NOT NULL THEN
    SELECT replay_window_s INTO v_window FROM webhook_sources WHERE source = p_source;
    IF v_window IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(p_signed_lock_key);
      SELECT id INTO v_id FROM webhook_events
       WHERE source = p_source AND signed_sha256 = p_signed_sha256
         AND received_at > now() - make_interval(secs => v_window)
       ORDER BY seq LIMIT 1;
      IF v_id IS NOT NULL THEN
        RETURN json_build_object('id', v_id, 'duplicate', true);
      END IF;
    END IF;
  END IF;
  IF cardinality(p_earlier_ids) > 0 THEN
    SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = ANY (p_earlier_ids) ORDER BY seq LIMIT 1;
    IF v_id IS NOT NULL THEN
      RETURN json_build_object('id', v_id, 'duplicate', true);
    END IF;
  END IF;
  IF p_lock_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(p_lock_key);
  END IF;
  INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, event_type, payload, ordering_value, signed_sha256)
  SELECT s.source, p_webhook_id, to_timestamp(p_timestamp), p_event_type, p_payload::json, p_ordering_value, p_signed_sha256
    FROM webhook_sources s WHERE s.source = p_source
  ON CONFLICT (source, webhook_id) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NOT NULL THEN
    RETURN json_build_object('id', v_id, 'duplicate', false);
  END IF;
  SELECT id INTO v_id FROM webhook_events WHERE source = p_source AND webhook_id = p_webhook_id;
  RETURN json_build_object('id', v_id, 'duplicate', true);  -- id NULL: the source was deleted meanwhile
END
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_reject(p_source text, p_rejection jsonb)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE webhook_sources s
     SET recent_rejections = (
           SELECT coalesce(jsonb_agg(r.value ORDER BY r.n), '[]'::jsonb)
             FROM jsonb_array_elements(jsonb_build_array(jsonb_build_object('at', admit_rfc3339(now())) || p_rejection)
                                       || s.recent_rejections) WITH ORDINALITY AS r(value, n)
            WHERE r.n <= 10)
   WHERE s.source = (SELECT l.source FROM webhook_sources l WHERE l.source = p_source FOR NO KEY UPDATE SKIP LOCKED)
     AND p_rejection->>'reason' <> 'unknown-source'
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_source_for_delivery(p_source text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
           'scheme', s.scheme,
           'secrets', CASE WHEN s.previous_secret_expires_at > now() THEN json_build_array(s.secret, s.previous_secret)
                           ELSE json_build_array(s.secret) END,
           'tolerance_s', s.tolerance_s,
           'ordering_key', s.ordering_key,
           'hmac', s.hmac,
           'replay_window_s', s.replay_window_s,
           'now_ms', floor(extract(epoch FROM now()) * 1000)::bigint)
    FROM webhook_sources s WHERE s.source = p_source
$function$;

CREATE OR REPLACE FUNCTION public.admit_webhook_source_json(s webhook_sources)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object('source', s.source, 'scheme', s.scheme, 'tolerance_s', s.tolerance_s, 'ordering_key', s.ordering_key,
                           'hmac', s.hmac, 'replay_window_s', s.replay_window_s,
                           'previous_secret_expires_at',
                             CASE WHEN s.previous_secret_expires_at > now() THEN admit_rfc3339(s.previous_secret_expires_at) END,
                           'recent_rejections', s.recent_rejections,
                           'created_at', admit_rfc3339(s.created_at), 'updated_at', admit_rfc3339(s.updated_at))
$function$;
