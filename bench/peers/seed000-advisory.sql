-- Peer: seed 000's fix — the same check-then-insert, but first pg_advisory_xact_lock on the FNV-1a 64
-- hash of the resource, so requests for one server queue up. Correct; it costs a round trip per
-- statement (BEGIN, lock, check, insert, COMMIT) where Admit's admit_reserve() makes it one call.
-- Same table as seed000-naive.sql (its `setup` creates it).

-- name: lock
SELECT pg_advisory_xact_lock($1::bigint);

-- name: check
SELECT true AS taken FROM bench_reserved_servers
 WHERE resource = $1 AND start_at < $3::timestamptz AND end_at > $2::timestamptz
 LIMIT 1;

-- name: insert
INSERT INTO bench_reserved_servers (resource, user_id, start_at, end_at)
VALUES ($1, $4, $2::timestamptz, $3::timestamptz);
