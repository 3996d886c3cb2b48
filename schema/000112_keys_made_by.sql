-- The audit log's key filter: key=root and key=binding each find only their own rows. Neither the
-- root token nor the Service Binding writes a key id (core/audit.ts: actor name 'root' or 'binding').

-- The audit log, newest first, filtered by target, key (a key id; 'root': the API_TOKEN;
-- 'binding': the Service Binding, RPC) and [p_from, p_to); keyset on (at, id) descending. The root
-- token and the binding both write no key id: their rows differ by key_name.
CREATE OR REPLACE FUNCTION admit_audit_list(p_target text, p_key text, p_from timestamptz, p_to timestamptz, p_before_at timestamptz, p_before_id bigint, p_limit integer)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', a.at, 'key', jsonb_build_object('id', a.key_id, 'name', a.key_name),
           'action', a.action, 'target', a.target, 'change', a.change) ORDER BY a.at DESC, a.id DESC), '[]'::jsonb)
    FROM (SELECT * FROM admit_audit
           WHERE (p_target IS NULL OR target = p_target)
             AND (p_key IS NULL
                  OR (p_key IN ('root', 'binding') AND key_id IS NULL AND key_name = p_key)
                  OR key_id::text = p_key)
             AND (p_from IS NULL OR at >= p_from)
             AND (p_to IS NULL OR at < p_to)
             AND (p_before_at IS NULL OR (at, id) < (p_before_at, p_before_id))
           ORDER BY at DESC, id DESC
           LIMIT p_limit + 1) a
$$;
