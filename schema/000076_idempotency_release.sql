-- A keyed request whose answer is a refusal the database decided (a rate-limit check's 429) keeps
-- what that decision wrote and lets the key go (issue 28, item 6).
--
-- The Idempotency-Key middleware rolled back every answer it does not store, and with it the
-- request's own statement: a keyed check that was denied was neither counted (attempted/rejected)
-- nor logged, although docs/ratelimits.md promises every call of a logged policy is. Such an answer
-- is still not stored (a retry must decide again), but now the middleware deletes the key it claimed
-- in this transaction and commits: the effect stands exactly as without a key, and a request waiting
-- on the key claims it afresh, as after a rollback.

-- Lets go of p_key, claimed by this transaction (nothing else can hold an uncommitted claim of it).
CREATE FUNCTION admit_idempotency_release(p_key text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM idempotency_keys WHERE key = p_key AND response_status IS NULL
$$;
