-- What every table holds and what every admit_* function decides, in the catalog, so the dumped
-- schema (schema/current/<area>.sql) says it beside each definition. A later migration that drops
-- and re-creates a function gives it its COMMENT ON again (test/schema/schema.dump.test.ts checks).

-- core
COMMENT ON FUNCTION admit_fnv64 IS 'The lock key of a namespaced name: FNV-1a 64 over its UTF-8 bytes as a signed bigint, the same as lockKey() in functions/core/lock-keys.ts.';
COMMENT ON FUNCTION admit_advisory_xact_lock_within IS 'Takes the transaction-scoped advisory lock p_key, waiting at most p_wait_ms; false when it could not be had in time (nothing is held then).';
COMMENT ON FUNCTION admit_ms_to_ts IS 'Epoch milliseconds to timestamptz.';
COMMENT ON FUNCTION admit_ts_to_ms IS 'timestamptz to epoch milliseconds (numeric, fractions kept).';
COMMENT ON FUNCTION admit_rfc3339 IS 'A time as RFC 3339 in UTC with a Z, trailing zero fractions trimmed: every time leaves the database already formatted.';
COMMENT ON FUNCTION admit_page IS 'One page of a list read: the first items while they number at most p_limit and their JSON fits p_max_bytes (the first always), and whether any was left out.';
COMMENT ON FUNCTION admit_sweep IS 'One batch of every sweeper (admit_sweep_<area>()), in one transaction: housekeeping by hand.';
COMMENT ON FUNCTION admit_sweepers IS 'The sweepers the migrations define (admit_sweep_<area>() RETURNS integer), by name: what the cron runs.';
COMMENT ON FUNCTION admit_sweep_batch IS 'One batch of one sweeper, in its own statement: the rows it changed (0: nothing left now); NULL for a name that is not a sweeper.';

-- reservations
COMMENT ON TABLE reservations IS 'Bookings of a resource for a half-open [start, end); cancelled ones stay as history. The EXCLUDE constraint guarantees no two active reservations of one resource overlap.';
COMMENT ON FUNCTION admit_reserve IS 'Decides one reservation: under the resource''s advisory lock, refuses with the overlapping reservations or inserts it; one statement, one transaction.';
COMMENT ON FUNCTION admit_reserve_batch IS 'Decides several reservations in one statement, each exactly as admit_reserve alone would, taking the resources'' locks in one global order.';
COMMENT ON FUNCTION admit_cancel_reservation IS 'Cancels a reservation (its time is free at once); the row stays as history; cancelling twice keeps the first time. NULL for an unknown id.';
COMMENT ON FUNCTION admit_get_reservation IS 'One reservation by id, in its public shape, or NULL.';
COMMENT ON FUNCTION admit_list_reservations IS 'Active reservations of a resource overlapping [p_from, p_to), by start then id, after a keyset cursor, one bounded page.';
COMMENT ON FUNCTION admit_list_reservations_history IS 'admit_list_reservations with cancelled reservations too, in the same order and pages.';
COMMENT ON FUNCTION admit_reservation_json IS 'A reservation''s public shape, built in one place so every endpoint answers alike.';
COMMENT ON FUNCTION admit_resource_availability IS 'The free and taken intervals of a resource over [p_from, p_to), at most p_limit taken ones.';

-- rate limits
COMMENT ON TABLE ratelimit_policies IS 'Rate-limit policies: algorithm (fixed, sliding, token bucket), limit, window, log and history settings, latency budget and fail mode.';
COMMENT ON TABLE ratelimit_overrides IS 'Per-key limits over a half-open period [valid_from, valid_to); the EXCLUDE constraint guarantees two periods of one (policy, key) never overlap.';
COMMENT ON TABLE ratelimit_counters IS 'The counters: one row per (policy, key, window slot) for fixed and sliding windows, one per (policy, key) for the token bucket. Only never-changing columns are indexed and FILLFACTOR leaves room, so every update is HOT.';
COMMENT ON TABLE ratelimit_log IS 'The request log of the policies that opt in (log: true): one row per decision, swept after the policy''s history_ms.';
COMMENT ON FUNCTION admit_ratelimit_check IS 'Decides one rate-limit check of p_cost units for (policy, key): the fixed-window fast path, else admit_ratelimit_check_any. Writes the counter only as the decision needs; returns the verdict with limit, remaining, reset and the policy''s budget and fail mode.';
COMMENT ON FUNCTION admit_ratelimit_check_any IS 'Decides one rate-limit check under any algorithm (fixed, sliding window, GCRA token bucket) on the database clock; a cost of 0 is a peek that writes nothing.';
COMMENT ON FUNCTION admit_ratelimit_check_multi IS 'Decides one check against several policies all-or-nothing: admitted only if every policy admits it, and a refusal leaves every policy as it was.';
COMMENT ON FUNCTION admit_ratelimit_check_run IS 'Decides consecutive checks of one (policy, key) with one counter write, each answered as it would have been alone, in order.';
COMMENT ON FUNCTION admit_ratelimit_check_batch IS 'Decides the checks of one isolate''s batch in one statement, each as it would have been alone, locking counter rows in one global order.';
COMMENT ON FUNCTION admit_ratelimit_frame IS 'Where a key stands at a moment: the limit in force (its override then, else the policy''s), the window, the aligned slot and, for sliding windows, the previous window''s weight.';
COMMENT ON FUNCTION admit_ratelimit_wait_ms IS 'How long from p_now until a call of p_cost would be admitted given the state after a decision: 0 now, NULL never (cost above the limit).';
COMMENT ON FUNCTION admit_ratelimit_refund IS 'Gives back up to p_cost units consumed in the current window (never below zero; a bucket never above its limit); NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_ratelimit_usage IS 'A key''s usage: the current window''s admitted, attempted, rejected and consumed, and the stored windows in [p_from, p_to); NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_ratelimit_put_policy IS 'Creates or replaces a policy, with its audit row, in one statement; a PUT of what is already there changes nothing.';
COMMENT ON FUNCTION admit_ratelimit_delete_policy IS 'Deletes a policy with its overrides and counters, under the policy''s lock; false when there was none.';
COMMENT ON FUNCTION admit_ratelimit_put_override IS 'Sets a key''s limit for a period; an overlapping period of the same key is a conflict (the EXCLUDE constraint), never two limits at once.';
COMMENT ON FUNCTION admit_ratelimit_delete_overrides IS 'Deletes the key''s override starting at p_from, or all of the key''s overrides when p_from is NULL.';
COMMENT ON FUNCTION admit_ratelimit_list_policies IS 'Rate-limit policies by name, after a cursor, one bounded page.';
COMMENT ON FUNCTION admit_ratelimit_list_overrides IS 'The override periods of one key, in order; NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_ratelimit_list_policy_overrides IS 'Every override of one policy by key then start, after a (key, start) cursor; NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_ratelimit_policy_json IS 'A policy''s public shape.';
COMMENT ON FUNCTION admit_ratelimit_override_json IS 'An override''s public shape.';
COMMENT ON FUNCTION admit_ratelimit_policy_keys IS 'A policy''s keys ranked by refusals or by units consumed, in the current window or the last hour, after a (count, key) cursor; NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_ratelimit_policy_minutes IS 'A policy''s decisions per minute over the last p_minutes (allowed, denied, unenforced, unavailable), oldest first; NULL when the policy does not exist.';
COMMENT ON FUNCTION admit_sweep_ratelimits IS 'Sweeper: deletes a bounded batch of expired counter rows and log rows past their policy''s history.';

-- observability
COMMENT ON TABLE metric_totals IS 'Each counter series'' total up to its oldest minute row: what /metrics adds the minute rows to.';
COMMENT ON TABLE metric_minutes IS 'Counts per series per minute for the last day: the dashboard''s "over time"; rolled into metric_totals by the sweeper.';
COMMENT ON TABLE metric_policies IS 'The policies that have a policy label of their own in /metrics (the first METRICS_MAX_POLICIES counted); a policy once here stays, so no counter ever goes down.';
COMMENT ON FUNCTION admit_observe_flush IS 'Writes one isolate''s tally in one statement: deny-cache refusals into their windows'' counters and decision counts into the metric series.';
COMMENT ON FUNCTION admit_metric_counters IS 'Every counter series (total plus minute rows) in one snapshot, for /metrics.';
COMMENT ON FUNCTION admit_metric_gauges IS 'The gauges a scrape reads, computed now on the database clock: permits in use, webhook events waiting, claimed and lapsed, rows due for sweeping.';
COMMENT ON FUNCTION admit_sweep_metrics IS 'Sweeper: minute rows older than 25 hours go into their series'' total, a bounded batch per call.';

-- permits: leases, in-request locks, invoices, semaphores
COMMENT ON SEQUENCE admit_fencing_token IS 'Fencing tokens for every grant of a lease or permit: tokens of one key strictly increase, across takeovers and sweeps.';
COMMENT ON TABLE permits IS 'Every claim of a lease or semaphore permit, kept as history: active while neither released nor timed out and expires_at is ahead; an expired claim is marked timed out by the next decision on its key or the sweeper.';
COMMENT ON TABLE semaphores IS 'Semaphores: their number of permits and default TTL, and how many are in use.';
COMMENT ON TABLE semaphore_free_slots IS 'The free slots of each semaphore, kept by triggers on permits, so an acquire takes the lowest free slot with an index look-up.';
COMMENT ON TABLE invoices IS 'Invoices generated under a subscription''s in-request lock: at most one generation of a subscription at a time.';
COMMENT ON FUNCTION admit_permit_acquire IS 'Decides one acquire of a lease or semaphore permit under its key''s advisory lock: the claim with a fresh fencing token and the lowest free slot, or busy with the earliest expiry.';
COMMENT ON FUNCTION admit_permit_acquire_batch IS 'Decides several acquires in one statement, each as admit_permit_acquire alone would, locking keys in one global order.';
COMMENT ON FUNCTION admit_permit_renew IS 'Extends the holder''s current claim; refused when the claim is no longer current (released, timed out or taken over).';
COMMENT ON FUNCTION admit_permit_release IS 'Releases the holder''s current claim (its slot is free at once); refused when the claim is no longer current.';
COMMENT ON FUNCTION admit_permit_check_current IS 'The owner check of renew and release: NULL when p_id is the key''s current claim, else why not.';
COMMENT ON FUNCTION admit_permit_config IS 'The lock key, size and TTL a claim of this kind and name is decided under; NULL size for a semaphore never created.';
COMMENT ON FUNCTION admit_permit_busy IS 'The claims in use now, who holds a lease, and when the earliest expires (for Retry-After).';
COMMENT ON FUNCTION admit_permit_json IS 'A claim''s public shape: a lease or a semaphore permit.';
COMMENT ON FUNCTION admit_permits_time_out IS 'Marks the expired unfinished claims of one key timed out (the caller holds the key''s lock).';
COMMENT ON FUNCTION admit_permits_changed IS 'Trigger: a statement''s changes to semaphore claims move the free slots and in_use.';
COMMENT ON FUNCTION admit_semaphore_claims_changed IS 'A statement''s change to the semaphores'' unfinished claims, per slot and per semaphore.';
COMMENT ON FUNCTION admit_semaphores_sized IS 'Trigger: a new semaphore''s slots are all free.';
COMMENT ON FUNCTION admit_semaphores_resized IS 'Trigger: a resized semaphore gains the free slots it grew by and drops those it shrank past.';
COMMENT ON FUNCTION admit_semaphore_put IS 'Creates or resizes a semaphore under its lock; resizing never takes a permit from a holder.';
COMMENT ON FUNCTION admit_semaphore_state IS 'One semaphore with its first 1 000 holders by slot.';
COMMENT ON FUNCTION admit_semaphore_json(text, integer) IS 'A semaphore''s public shape with up to p_holders holders.';
COMMENT ON FUNCTION admit_semaphore_json(text, integer, integer) IS 'A semaphore''s public shape with up to p_holders holders after slot p_after_slot.';
COMMENT ON FUNCTION admit_semaphore_list IS 'Semaphores by name after a cursor, one bounded page.';
COMMENT ON FUNCTION admit_lease_state IS 'Who holds a lease key now, and until when.';
COMMENT ON FUNCTION admit_lease_list IS 'Leases held now, by key after a cursor, optionally under a prefix.';
COMMENT ON FUNCTION admit_generate_invoice IS 'The work done under a subscription''s in-request lock: the invoice row (p_work_ms of simulated work first).';
COMMENT ON FUNCTION admit_sweep_permits IS 'Sweeper: marks expired claims timed out and deletes old history, a bounded batch, never waiting on a held row.';

-- inventory
COMMENT ON TABLE inventory_nights IS 'Each item''s capacity per night.';
COMMENT ON TABLE inventory_tokens IS 'One row per room-night (slots 1..capacity): a booking claims tokens with SKIP LOCKED, so buyers of one night commit side by side and nothing is oversold.';
COMMENT ON TABLE inventory_bookings IS 'Holds and bookings of rooms over [check_in, check_out): held until expires_at, then confirmed, cancelled or expired.';
COMMENT ON FUNCTION admit_inventory_book IS 'Decides one booking or hold: claims p_quantity tokens on every night of the stay, or refuses naming the nights that are really short.';
COMMENT ON FUNCTION admit_inventory_book_batch IS 'Decides several bookings in one statement, each as admit_inventory_book alone would; alike bookings of one night are claimed together.';
COMMENT ON FUNCTION admit_inventory_claim IS 'Claims free tokens of a stay without waiting (SKIP LOCKED), reading a few index pages however much of the night is sold.';
COMMENT ON FUNCTION admit_inventory_claim_waiting IS 'Claims free tokens of a stay, waiting for tokens other transactions hold, so a refusal is exact.';
COMMENT ON FUNCTION admit_inventory_confirm IS 'Confirms a hold that has not lapsed (database clock, after its tokens are locked); a lapsed hold is refused and released.';
COMMENT ON FUNCTION admit_inventory_cancel IS 'Cancels a booking or hold; its tokens are free at once.';
COMMENT ON FUNCTION admit_inventory_release IS 'Releases the tokens a booking still owns, in (night, slot) order.';
COMMENT ON FUNCTION admit_inventory_set_stock IS 'Sets an item''s capacity over a range of nights; never takes a room from a booking.';
COMMENT ON FUNCTION admit_inventory_availability IS 'Free rooms per night of an item over [p_from, p_to).';
COMMENT ON FUNCTION admit_inventory_get_booking IS 'One booking of an item by id, or NULL.';
COMMENT ON FUNCTION admit_inventory_booking_json IS 'A booking''s public shape.';
COMMENT ON FUNCTION admit_nights IS 'The nights of [p_from, p_to), in order.';
COMMENT ON FUNCTION admit_sweep_inventory IS 'Sweeper: hands lapsed holds'' tokens back and marks them expired, a bounded batch, never waiting.';
COMMENT ON FUNCTION admit_sweep_inventory_history IS 'Sweeper: deletes tokens, bookings and nights long past, a bounded batch, never waiting.';

-- idempotency
COMMENT ON TABLE idempotency_keys IS 'Idempotency records: a key''s request fingerprint and, once its transaction commits, the stored response replayed to a retry.';
COMMENT ON FUNCTION admit_idempotency_claim IS 'Claims an idempotency key for this transaction, or says what it holds: a stored response to replay, another request''s key, or one in progress.';
COMMENT ON FUNCTION admit_idempotency_store IS 'Stores the response of the request that claimed the key in this transaction.';
COMMENT ON FUNCTION admit_idempotency_release IS 'Lets go of a key this transaction claimed, so a retry runs.';
COMMENT ON FUNCTION admit_sweep_idempotency IS 'Sweeper: drops a bounded batch of expired records, never waiting on a key being claimed.';

-- webhooks
COMMENT ON TABLE webhook_sources IS 'Webhook senders: the signature scheme, secrets (the previous one until it expires), tolerance and ordering key.';
COMMENT ON TABLE webhook_events IS 'Verified deliveries, each event stored once per source and webhook id, with its claim (receipt, expiry) and processing state.';
COMMENT ON FUNCTION admit_webhook_receive IS 'Stores a verified delivery once: a repeat of its webhook id, of an earlier id, or of its signed bytes within the replay window changes nothing and answers the stored event.';
COMMENT ON FUNCTION admit_webhook_claim IS 'Claims waiting events for a consumer (SKIP LOCKED), oldest first, respecting ordering values; each claim has a receipt and visibility timeout.';
COMMENT ON FUNCTION admit_webhook_ack IS 'Marks an event processed when the receipt is its live claim''s; otherwise says why not.';
COMMENT ON FUNCTION admit_webhook_put_source IS 'Creates or updates a source and its replay window; a new secret keeps the previous one valid for its overlap; its recorded rejections are kept.';
COMMENT ON FUNCTION admit_webhook_get_source IS 'One source''s public view, or NULL.';
COMMENT ON FUNCTION admit_webhook_source_for_delivery IS 'What the receiver needs to verify a delivery: the scheme and the secrets accepted now; NULL for an unknown source.';
COMMENT ON FUNCTION admit_webhook_source_json IS 'A source''s public view: never a secret.';
COMMENT ON FUNCTION admit_webhook_list IS 'A source''s events by id after a cursor, optionally by status, one bounded page.';
COMMENT ON FUNCTION admit_webhook_list_sources IS 'Webhook sources by name after a cursor (never their secrets).';
COMMENT ON FUNCTION admit_webhook_event_json IS 'An event''s public shape.';
COMMENT ON FUNCTION admit_sweep_webhook_events IS 'Sweeper: deletes processed events past their retention, a bounded batch; unprocessed events are never swept.';
COMMENT ON FUNCTION admit_sweep_webhook_secrets IS 'Sweeper: clears previous secrets past their expiry.';

-- keys and audit
COMMENT ON TABLE admit_keys IS 'Scoped API keys: name, scopes, name patterns, expiry and revocation; the secrets are in admit_key_secrets.';
COMMENT ON TABLE admit_key_secrets IS 'The hashes of each key''s secrets (never the secrets), each with its own expiry so a rotation overlaps.';
COMMENT ON TABLE admit_audit IS 'The audit log: every configuration write, by whom, written in the same statement as the change or not at all.';
COMMENT ON FUNCTION admit_key_create IS 'Creates a key with its first secret and the audit row, in one statement; a key made by a key never expires after its maker, which must be live by the database clock.';
COMMENT ON FUNCTION admit_key_live_maker IS 'The maker key, share-locked, when it is neither revoked nor expired by the database clock; NULL otherwise.';
COMMENT ON FUNCTION admit_key_lookup IS 'What an isolate caches for a secret''s hash, or NULL (unknown, revoked and expired alike), and how long it stays valid by the database clock.';
COMMENT ON FUNCTION admit_key_rotate IS 'A new secret for a key; its live secrets end after the overlap. A maker key may rotate only keys that expire no later than itself.';
COMMENT ON FUNCTION admit_key_revoke IS 'Revokes a key, every secret at once, and every key it made, down the line, each with its audit row; revoking twice changes nothing.';
COMMENT ON FUNCTION admit_key_list IS 'Keys by creation, after a cursor; a name-limited key sees only the keys it could have made.';
COMMENT ON FUNCTION admit_key_json IS 'A key''s public shape: never a hash.';
COMMENT ON FUNCTION admit_audit_write IS 'Writes one audit row; returns true so a statement can call it beside its change.';
COMMENT ON FUNCTION admit_audit_list IS 'The audit log newest first, filtered by target, key (an id, root or binding) and time, after an (at, id) cursor; a name-limited key sees only rows on what it may see.';
COMMENT ON FUNCTION admit_key_visible IS 'Whether a key whose name patterns are p_key_names is visible to a key limited to p_names: each of its patterns lies within one of those.';
COMMENT ON FUNCTION admit_sweep_audit IS 'Sweeper: deletes audit rows past their retention and secrets whose overlap ended, a bounded batch.';
