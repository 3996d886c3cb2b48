-- Shared pieces every capability stands on.

-- btree_gist lets an EXCLUDE constraint mix equality on text with overlap on ranges.
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- RFC 3339 in UTC with a "Z", trailing zero fractions trimmed: 2021-01-01T14:45:00Z, …T14:45:00.5Z.
-- Times leave the database already formatted, so no client clock or parser touches them.
CREATE FUNCTION admit_rfc3339(t timestamptz) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0+$', '') || 'Z'
$$;
