-- Deny and allow lists of the rate limits: entries for a key, a key prefix, an IP address or network
-- (v4 or v6) and a country, each for one policy or for every policy (global), with an optional expiry
-- and a reason. Only storage, listing and writes live here: the check never reads this table. Each
-- isolate loads every live entry with one statement (admit_ratelimit_lists_load) at most every 5 s
-- and decides in memory before any counter is touched (functions/ratelimits/lists/).

CREATE TABLE ratelimit_list_entries (
  list text NOT NULL CHECK (list IN ('deny', 'allow')),
  policy text REFERENCES ratelimit_policies (name) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('key', 'prefix', 'ip', 'country')),
  value text NOT NULL,
  network cidr,
  reason text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'ip') = (network IS NOT NULL)),
  CHECK (kind <> 'ip' OR value = network::text),
  CHECK (kind <> 'country' OR value ~ '^[A-Z]{2}$')
);
COMMENT ON TABLE ratelimit_list_entries IS
  'Deny and allow list entries of the rate limits: one per (list, policy or global, kind, value). kind ip keeps the network in `network` (cidr; an address is a /32 or /128) and its text in `value`. policy NULL = every policy. Read by isolates in one statement per load (admit_ratelimit_lists_load), never per check.';

CREATE UNIQUE INDEX ratelimit_list_entries_by_value ON ratelimit_list_entries (list, (coalesce(policy, '')) COLLATE "C", kind, value COLLATE "C");
CREATE INDEX ratelimit_list_entries_by_policy ON ratelimit_list_entries (policy) WHERE policy IS NOT NULL;

-- One entry as the API answers it.
CREATE FUNCTION admit_ratelimit_list_entry_json(e ratelimit_list_entries) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'list', e.list, 'policy', e.policy, 'kind', e.kind, 'value', e.value, 'reason', e.reason,
    'expires_at', admit_rfc3339(e.expires_at), 'created_at', admit_rfc3339(e.created_at),
    'updated_at', admit_rfc3339(e.updated_at),
    'expired', e.expires_at IS NOT NULL AND e.expires_at <= now())
$$;
COMMENT ON FUNCTION admit_ratelimit_list_entry_json(ratelimit_list_entries) IS
  'A deny/allow list entry as JSON (list, policy, kind, value, reason, expires_at, created_at, updated_at, expired).';

-- Creates or replaces the entry (list, policy, kind, value). An ip value is any inet text; its
-- network is stored (host bits past the mask cleared: 10.1.2.3/8 is 10.0.0.0/8). Returns
-- {status: created|updated|no_policy|invalid, entry}.
CREATE FUNCTION admit_ratelimit_list_put(p_list text, p_policy text, p_kind text, p_value text, p_reason text, p_expires_at timestamptz)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_net cidr;
  v_value text := p_value;
  v_created boolean;
  v_entry json;
BEGIN
  IF p_policy IS NOT NULL THEN
    PERFORM 1 FROM ratelimit_policies WHERE name = p_policy FOR KEY SHARE;
    IF NOT FOUND THEN RETURN json_build_object('status', 'no_policy'); END IF;
  END IF;
  IF p_kind = 'ip' THEN
    BEGIN
      v_net := network(p_value::inet);
    EXCEPTION WHEN invalid_text_representation THEN
      RETURN json_build_object('status', 'invalid');
    END;
    v_value := v_net::text;
  ELSIF p_kind = 'country' THEN
    v_value := upper(p_value);
  END IF;
  INSERT INTO ratelimit_list_entries AS t (list, policy, kind, value, network, reason, expires_at)
  VALUES (p_list, p_policy, p_kind, v_value, v_net, p_reason, p_expires_at)
  ON CONFLICT (list, (coalesce(policy, '')) COLLATE "C", kind, value COLLATE "C")
  DO UPDATE SET reason = excluded.reason, expires_at = excluded.expires_at, updated_at = now()
  RETURNING (t.xmax = 0), admit_ratelimit_list_entry_json(t) INTO v_created, v_entry;
  RETURN json_build_object('status', CASE WHEN v_created THEN 'created' ELSE 'updated' END, 'entry', v_entry);
END;
$$;
COMMENT ON FUNCTION admit_ratelimit_list_put(text, text, text, text, text, timestamptz) IS
  'PUT /v1/ratelimits/lists/{list}: creates or replaces one deny/allow entry (ip values stored as their network). {status: created|updated|no_policy|invalid, entry}.';

-- Deletes the entry (list, policy, kind, value); ip and country values are compared as stored.
CREATE FUNCTION admit_ratelimit_list_delete(p_list text, p_policy text, p_kind text, p_value text)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_value text := p_value;
BEGIN
  IF p_kind = 'ip' THEN
    BEGIN
      v_value := network(p_value::inet)::text;
    EXCEPTION WHEN invalid_text_representation THEN
      RETURN false;
    END;
  ELSIF p_kind = 'country' THEN
    v_value := upper(p_value);
  END IF;
  DELETE FROM ratelimit_list_entries
   WHERE list = p_list AND coalesce(policy, '') = coalesce(p_policy, '') AND kind = p_kind AND value = v_value;
  RETURN FOUND;
END;
$$;
COMMENT ON FUNCTION admit_ratelimit_list_delete(text, text, text, text) IS
  'DELETE /v1/ratelimits/lists/{list}: removes one entry by (policy or global, kind, value); true when one was removed.';

-- A page of one list, by (policy or '' for global, kind, value), after the cursor, up to p_limit + 1.
-- p_policy filters to one policy; p_names (LIKE patterns) to the policies the caller may see — a
-- caller with name patterns never sees global entries.
CREATE FUNCTION admit_ratelimit_list_page(p_list text, p_policy text, p_after text[], p_limit integer, p_names text[])
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(admit_ratelimit_list_entry_json(e) ORDER BY coalesce(e.policy, '') COLLATE "C", e.kind, e.value COLLATE "C"), '[]')
    FROM (
      SELECT * FROM ratelimit_list_entries t
       WHERE t.list = p_list
         AND (p_policy IS NULL OR t.policy = p_policy)
         AND (p_names IS NULL OR (t.policy IS NOT NULL AND t.policy LIKE ANY (p_names)))
         AND (p_after IS NULL OR (coalesce(t.policy, '') COLLATE "C", t.kind, t.value COLLATE "C") > (p_after[1] COLLATE "C", p_after[2], p_after[3] COLLATE "C"))
       ORDER BY coalesce(t.policy, '') COLLATE "C", t.kind, t.value COLLATE "C"
       LIMIT p_limit + 1
    ) e
$$;
COMMENT ON FUNCTION admit_ratelimit_list_page(text, text, text[], integer, text[]) IS
  'GET /v1/ratelimits/lists/{list}: a page of entries by (policy, kind, value) after a cursor, limited to the policies the caller may see (no global entries for a caller with name patterns).';

-- Every live entry of both lists, for an isolate's cache: one statement per load. `expires_in_ms`
-- is measured on the database's clock, so the isolate stops believing an entry by its own elapsed time.
CREATE FUNCTION admit_ratelimit_lists_load()
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(json_build_object(
           'list', list, 'policy', policy, 'kind', kind, 'value', value, 'reason', reason,
           'expires_in_ms', CASE WHEN expires_at IS NULL THEN NULL ELSE floor(extract(epoch FROM expires_at - now()) * 1000)::bigint END)), '[]')
    FROM ratelimit_list_entries
   WHERE expires_at IS NULL OR expires_at > now()
$$;
COMMENT ON FUNCTION admit_ratelimit_lists_load() IS
  'Every live deny/allow entry with its remaining lifetime in ms (database clock), for an isolate''s list cache: one statement per load, never per check.';
