-- Peer: seed 000's first version, as written in the article — check for an overlap, insert if none,
-- in one READ COMMITTED transaction over several round trips. Nothing stops two requests from both
-- seeing "no overlap" before either inserts: under a burst it books the same server twice. The
-- bench runs it to show that (its violations are counted), not as a design to copy.
-- Intervals are half-open [start, end) here, as in Admit, so overlaps are counted the same way.

-- name: setup
CREATE TABLE IF NOT EXISTS bench_reserved_servers (
  id        bigserial PRIMARY KEY,
  resource  text NOT NULL,
  user_id   text NOT NULL,
  start_at  timestamptz NOT NULL,
  end_at    timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS bench_reserved_servers_resource ON bench_reserved_servers (resource, start_at);

-- name: check
SELECT true AS taken FROM bench_reserved_servers
 WHERE resource = $1 AND start_at < $3::timestamptz AND end_at > $2::timestamptz
 LIMIT 1;

-- name: insert
INSERT INTO bench_reserved_servers (resource, user_id, start_at, end_at)
VALUES ($1, $4, $2::timestamptz, $3::timestamptz);
