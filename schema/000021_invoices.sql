-- Seed 002's scenario: "at any given time, generate only one invoice per subscription".
--
-- POST /v1/invoices/generate runs admit_generate_invoice() inside withTryLock(db, 'invoice_gen/' ||
-- subscription_id) (functions/permits/locks.ts): pg_try_advisory_xact_lock(fnv64('lock/invoice_gen/<id>')) in
-- the same transaction, failing fast (409) instead of waiting. The lock ends with the transaction —
-- commit, rollback, or a dropped connection — so a crashed generator never blocks the next one.
--
-- Per-subscription invoice numbers are max + 1: safe only because the generation holds the lock;
-- the unique constraint is the database's backstop should anything write without it.

CREATE TABLE invoices (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  subscription_id text NOT NULL,
  kind            text NOT NULL,
  number          integer NOT NULL,
  work_ms         integer NOT NULL,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz NOT NULL,
  CONSTRAINT invoices_subscription_length CHECK (char_length(subscription_id) BETWEEN 1 AND 200),
  CONSTRAINT invoices_kind CHECK (kind IN ('usage', 'recurring')),
  CONSTRAINT invoices_work_range CHECK (work_ms BETWEEN 0 AND 3000),
  CONSTRAINT invoices_number_unique UNIQUE (subscription_id, number)
);

-- The "generation": p_work_ms of simulated work (pg_sleep, inside the caller's locked transaction, so
-- a second request can be seen to collide with it), then the invoice row. started_at is the
-- transaction's start, finished_at the database clock when the row was written.
CREATE FUNCTION admit_generate_invoice(p_subscription_id text, p_kind text, p_work_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;
