-- PUT /v1/semaphores/{name} without default_ttl_ms reset an existing semaphore's default TTL to
-- 60 000 ms (the route filled the default in, the upsert wrote it): resizing a semaphore set up with
-- 90 s claims made every later claim without ttl_ms a 60 s one, which timed out early and let more
-- holders in. p_default_ttl_ms NULL now keeps the semaphore's (60 000 for a new one).
-- And the rateLimit() middleware's first use of a concurrency limit created its semaphore with this
-- same upsert, so two isolates meeting "not found" at once, or a Worker configured with another
-- size, resized an existing semaphore, though the middleware promises never to: with p_create_only
-- an existing semaphore is answered as it is.

DROP FUNCTION admit_semaphore_put(bigint, text, integer, integer, integer);
CREATE FUNCTION admit_semaphore_put(
  p_lock_key bigint, p_name text, p_permits integer, p_default_ttl_ms integer, p_create_only boolean, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;
