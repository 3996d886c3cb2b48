// GENERATED FILE: DO NOT EDIT.
//
// The types of Admit's OpenAPI document (GET /openapi.json), written by `npm run client:generate`
// (dev/client-generate.ts, with openapi-typescript) from the app in functions/index.ts.
// test/client/client.drift.test.ts fails while it is out of date.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and database reachability */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a resource's reservations in a range
         * @description Ordered by start. Up to `limit` (default and max 1000) per page, fewer when their JSON passes about 2 MiB (large `metadata`); follow `next_cursor` for more.
         */
        get: operations["listReservations"];
        put?: never;
        /**
         * Reserve a resource for [start, end)
         * @description Atomically checks for overlap and inserts, under `pg_advisory_xact_lock(fnv64('reservation/' + resource))`, backed by an `EXCLUDE` constraint. Back-to-back intervals do not overlap.
         */
        post: operations["createReservation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a reservation (active or cancelled) */
        get: operations["getReservation"];
        put?: never;
        post?: never;
        /**
         * Cancel a reservation
         * @description The reservation is kept as history with `cancelled_at`; its time is free at once. Cancelling again is a no-op (204).
         */
        delete: operations["cancelReservation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/resources/{resource}/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Free and busy times of a resource
         * @description The window may span at most 366 days. An answer covers at most `limit` reservations: past them it stops at the next one's start (`to`) and gives `next_from`, where to ask again. Encode `/` in the resource as `%2F`.
         */
        get: operations["getResourceAvailability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks/{key}/acquire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acquire a lock lease, or 409 at once
         * @description Never blocks. An expired lease is taken over; the new grant's fencing token is larger than every earlier one of this key.
         */
        post: operations["acquireLock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks/{key}/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Extend your lock lease */
        post: operations["renewLock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks/{key}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release your lock lease
         * @description The key is free at once; the lease stays as history with `released_at`.
         */
        post: operations["releaseLock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who holds a lock, and until when
         * @description A key that is free (never acquired, released or expired) answers `held: false`. The lease id is never shown.
         */
        get: operations["getLock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/locks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Lock leases held now, by key
         * @description Unexpired leases only (a free key is not listed), ordered by key; up to `limit` per page, then follow `next_cursor`. Lease ids are never shown.
         */
        get: operations["listLocks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/semaphores/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Size, use and current holders of a semaphore
         * @description At most `holders` holders (1000 by default) by slot; when `more_holders` is not 0, ask again with `after_slot` set to the last slot listed.
         */
        get: operations["getSemaphore"];
        /**
         * Create or resize a semaphore
         * @description Shrinking keeps existing claims until they end; new claims are granted only while fewer than `permits` are in use.
         */
        put: operations["putSemaphore"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/semaphores": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every semaphore with its use and first holders
         * @description Ordered by name; up to `limit` per page (fewer when their JSON passes about 2 MiB), then follow `next_cursor`. Each semaphore carries its first `holders` holders by slot and `more_holders`, the count of the rest.
         */
        get: operations["listSemaphores"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/semaphores/{name}/acquire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acquire a semaphore slot, or 429 at once
         * @description Never queues: when every permit is taken the answer is 429 with `Retry-After` until the earliest claim expires. Expired claims are marked timed out and their slots reused (database clock).
         */
        post: operations["acquireSemaphore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/semaphores/{name}/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Extend your semaphore slot */
        post: operations["renewSemaphore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/semaphores/{name}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release your semaphore slot
         * @description The claim stays as history with `released_at`; its slot is free at once.
         */
        post: operations["releaseSemaphore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invoices/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate an invoice, one at a time per subscription
         * @description Runs under `pg_try_advisory_xact_lock(fnv64('lock/invoice_gen/' + subscription_id))` in one transaction. A second generation for the same subscription while one runs → 409 at once; the lock is gone when the transaction ends, even if its connection dies.
         */
        post: operations["generateInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inventory/{item}/stock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set nightly stock for a date range
         * @description Up to 366 nights, changing at most 100000 room-nights (the sum over the nights of |quantity − current capacity|; a larger change is a 422 — split the range). All or nothing: lowering any night below what is booked + held there is a 409 naming those nights, and nothing changes.
         */
        put: operations["putInventoryStock"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inventory/{item}/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Nightly availability of an item
         * @description Up to 366 nights. `held` counts unexpired holds only; `available = capacity − booked − held`. A night without stock is all zeros.
         */
        get: operations["getInventoryAvailability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inventory/{item}/bookings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Book or hold rooms for a stay
         * @description All or nothing, in one SQL call: on every night, `quantity` free rooms (never taken, or a lapsed hold) are claimed, skipping rooms other buyers hold at that moment; a night short even after waiting for those buyers is the 409, and nothing is taken. With `hold_ms` the booking is `held` until `expires_at`; confirm it before then.
         */
        post: operations["createBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inventory/{item}/bookings/{id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a held booking before it expires
         * @description Never extends the hold. After `expires_at` (database clock) → 409 `hold-expired`, and its rooms are free. Confirming a confirmed booking again → 200.
         */
        post: operations["confirmBooking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inventory/{item}/bookings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a booking or hold
         * @description `status` is `held`, `confirmed`, `cancelled`, or `expired` (a hold past `expires_at`).
         */
        get: operations["getBooking"];
        put?: never;
        post?: never;
        /**
         * Cancel a booking or hold
         * @description Its room-nights are free at once. Kept as history with `cancelled_at`; cancelling again → 204.
         */
        delete: operations["cancelBooking"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/sources/{source}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook sender's settings (never its secret) */
        get: operations["getWebhookSource"];
        /**
         * Register or replace a webhook sender
         * @description Stores the sender's scheme, signing secret (write-only: no endpoint returns it), timestamp tolerance and optional ordering key. Replacing a source keeps its events. A rotation keeps the previous secret accepted for `previous_secret_ttl_ms`.
         */
        put: operations["putWebhookSource"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook senders (never their secrets)
         * @description Ordered by name; up to `limit` per page, then follow `next_cursor`.
         */
        get: operations["listWebhookSources"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a signed webhook delivery
         * @description Authenticated by the signature of the source's `scheme` (no bearer token): standard-webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), stripe (`Stripe-Signature`), github (`X-Hub-Signature-256`, `X-GitHub-Delivery`, `X-GitHub-Event`), shopify (`X-Shopify-Hmac-Sha256`, `X-Shopify-Webhook-Id`, `X-Shopify-Event-Id`, `X-Shopify-Topic`), slack (`X-Slack-Signature`, `X-Slack-Request-Timestamp`) or hmac (the headers the source names). Verified over the raw body bytes against the source's secret, or its previous secret during a rotation. The body is any JSON, up to 1 MiB (413 beyond).
         *
         *     A signed timestamp must be within ±`tolerance_s` of the database clock. A missing or malformed header, a signature that does not match, a timestamp outside the tolerance and an unknown source all get one and the same 401 `/problems/webhook-signature` (status, headers and body alike), and nothing is stored: a sender learns nothing of which sources exist or how they are set up. Which it was is shown to the source's owner, in `recent_rejections` of `GET /v1/webhooks/sources/{source}`, and in the decision log.
         *
         *     The event is stored once per (source, the sender's own id): the first delivery → 200 `{id, status: "received"}`; a redelivery → the same answer with `Idempotent-Replayed: true`; with the source's `replay_window_s`, so is a delivery whose signed bytes equal an event's received within it. Slack's `url_verification` → 200 `{challenge}` and GitHub's `ping` → 200 `{status: "acknowledged", stored: false}`, neither stored.
         */
        post: operations["receiveWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Claim unprocessed webhook events
         * @description Up to `limit` events, oldest first (fewer when their payloads pass about 2 MiB together; one event always), each held for `visibility_ms`; no two consumers get the same event while its claim is live, and an unacknowledged event becomes claimable again when its claim expires. With an ordering key, only the oldest unprocessed event of each ordering value is claimable: events sharing a value are never claimed concurrently and come in received order.
         */
        post: operations["claimWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events/{id}/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge a claimed webhook event
         * @description Only the live claim's `receipt` acknowledges the event: the receipt of a claim that lapsed (the event was claimed again, or could be) gets 409 `/problems/claim-not-current` and changes nothing, so a late consumer never closes another consumer's claim. Acknowledging again with the receipt that processed it is a no-op that returns the event. An acknowledged event is never claimed again.
         */
        post: operations["ackWebhookEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a source's webhook events
         * @description Optionally of one status; up to `limit` (default 100, max 1000) per page, fewer when their payloads pass about 2 MiB together, then follow `next_cursor`.
         *
         *     Not ambiguous with `GET /v1/webhooks/sources/{source}` although a linter says so: no source may be named `sources` (422 on registering it), so `/v1/webhooks/sources/events` is always the settings of source `events`.
         */
        get: operations["listWebhookEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forward again the failed events of a time range
         * @description The source's `failed` events received in [`since`, `until`), at most `limit` (1000) a call: each pending again from the start of the retry schedule; the attempts start after the answer and the cron goes on with the rest. `more: true`: call again for the next ones. Audited.
         */
        post: operations["redeliverFailedWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an event's forwarding attempts
         * @description Oldest first: when each started and finished, what started it, the target's status, the latency, the outcome and the first 1024 characters of the answer. An attempt in flight has no outcome yet. Up to `limit` per page, then follow `next_cursor`.
         */
        get: operations["listWebhookAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{source}/events/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forward an event again
         * @description Makes the event due now, from the start of the retry schedule, whatever its state (failed, delivered, or received before the source forwarded), and starts the attempt after the answer. Audited. 409 while an attempt of it is in flight or a pull consumer holds it, or when the source does not forward.
         */
        post: operations["redeliverWebhookEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rate-limit policies
         * @description Ordered by name; up to `limit` per page, then follow `next_cursor`.
         */
        get: operations["listRateLimitPolicies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies/{name}/overrides": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List every override of a policy
         * @description The override periods of every key of the policy, by key then `valid_from`; up to `limit` per page, then follow `next_cursor`.
         */
        get: operations["listRateLimitPolicyOverrides"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a rate-limit policy */
        get: operations["getRateLimitPolicy"];
        /**
         * Create or replace a rate-limit policy
         * @description Changing `algorithm` or `window_ms` resets the policy's counters; changing `limit` keeps them.
         */
        put: operations["putRateLimitPolicy"];
        post?: never;
        /**
         * Delete a rate-limit policy, its overrides and counters
         * @description Request-log rows are kept until their `history_ms` runs out.
         */
        delete: operations["deleteRateLimitPolicy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies/{name}/overrides/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a key's override periods
         * @description The override periods of the key, in order of `valid_from`.
         */
        get: operations["listRateLimitOverrides"];
        /**
         * Give a key its own limit for a period
         * @description Periods of one key never overlap (an `EXCLUDE` constraint): an overlapping period is a 409 listing the periods it overlaps. PUT with exactly the period of an existing override changes its limit (200). The override in force at the moment of a check (database clock) applies.
         *
         *     A key containing `*` is a pattern (`*` matches any run of characters, every other character is literal, e.g. `tenant-42:*`): its limit applies to every key it matches. A key's exact override beats every pattern; between matching patterns the one with the longest literal prefix (the text before its first `*`) wins. A pattern that could tie with another of the policy (the same literal prefix, some key both match, overlapping periods) is a 409 naming the other.
         */
        put: operations["putRateLimitOverride"];
        post?: never;
        /**
         * Delete a key's override periods
         * @description All of them, or with `valid_from` only the one starting then.
         */
        delete: operations["deleteRateLimitOverride"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check (and spend) a key's rate limit
         * @description First the deny/allow lists (this isolate's copy, at most 5 s old; no statement): a deny entry answers 403 `denied-by-list`, an allow entry 200 `reason: "allow-list"` — neither counts. Then: 200 when allowed, 429 when denied — with `policy`, both with the same body; with `policies` (1–8, one all-or-nothing statement), the 429 is a `quota-exceeded` problem document naming `violated-policies`. Both carry the IETF `RateLimit-Policy`/`RateLimit` headers (one list item per policy); 429 adds `Retry-After` (seconds, rounded up) unless the cost exceeds a limit. A denied call consumes nothing. When the database does not decide within the policies' `timeout_ms`, a fail-open check answers 200 `allowed: true` with `reason` `timeout`/`unavailable`, `consumed` and `Admit-RateLimit-Enforced: false`; a fail-closed one 503 + Retry-After when nothing was consumed, 504 outcome-unknown + Retry-After when the check was sent and may have consumed a unit.
         */
        post: operations["checkRateLimit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund units spent in the current window
         * @description Never below zero; a token bucket never holds more than `limit`. Clears this isolate's cached denial of the key.
         */
        post: operations["refundRateLimit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of a key: current window and history
         * @description `admitted` calls were served, `attempted` were made, `rejected` refused by the limit — `would_refuse` of them let through by shadow mode; `consumed` is the units spent (admitted costs minus refunds). History (`from`/`to`) is for fixed and sliding windows and goes back `history_ms`.
         */
        get: operations["getRateLimitUsage"];
        put?: never;
        post?: never;
        /**
         * Reset a key's usage: a fresh window
         * @description Sets the units the key spent in the current window to none (a sliding window's previous window too; a token bucket is refilled), in `policy` or, without it, in every policy the caller may touch. The window's admitted/attempted/rejected counts stay. Audited. Ordered with the checks of the key under its counter rows' locks: checks racing a reset admit at most the old window's and one fresh window's units. This isolate forgets its cached denials of the key at once; every other isolate within 5 s.
         */
        delete: operations["resetRateLimitUsage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/lists/{list}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a deny or allow list's entries
         * @description By (policy, kind, value), global entries first; expired entries too (`expired: true`) until deleted.
         */
        get: operations["listRateLimitListEntries"];
        /**
         * Add or replace a deny or allow list entry
         * @description An entry is named by (list, policy or global, kind, value); putting it again replaces its reason and expiry. A deny entry refuses a matching check with 403 `denied-by-list` before any counter is touched; an allow entry lets it through uncounted (when every policy of the check has one, or it is global). Deny wins over allow. Audited. Every isolate's checks see the change within 5 s; this isolate's at once.
         */
        put: operations["putRateLimitListEntry"];
        post?: never;
        /**
         * Remove a deny or allow list entry
         * @description Audited. Every isolate's checks see the change within 5 s; this isolate's at once.
         */
        delete: operations["deleteRateLimitListEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies/{name}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the keys of a policy by denials or use
         * @description The keys with the most rejected calls (`order=denied`) or the most consumed units (`order=used`) in the current window or over the windows overlapping the last hour (`window=1h`; for a window longer than an hour, that is the current window), keys with none left out; up to `limit` per page, then follow `next_cursor`. Calls the deny cache answered are included once their isolate's flush has landed (within `METRICS_FLUSH_MS`, 2 s by default). Counts move while you page: a key whose count changed between pages can appear twice or not at all.
         */
        get: operations["listRateLimitPolicyKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ratelimits/policies/{name}/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A policy's decisions per minute
         * @description Decisions of the policy per minute over the last `minutes` minutes (1–1440, default 60), oldest first, minutes without any left out: `allowed`, `denied` (deny-cache answers included), `would_refuse` (shadow mode refused, the call was let through), `unenforced` (fail open) and `unavailable` (fail closed). From the same counts as `/metrics` (`admit_ratelimit_decisions_total`), so a policy past `METRICS_MAX_POLICIES` has none of its own, and a minute is complete once the isolates' flushes have landed.
         */
        get: operations["getRateLimitPolicyDecisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/authz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Forward-auth rate-limit check for a gateway (any method)
         * @description Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.
         */
        get: operations["authorizeRequest"];
        /**
         * Forward-auth check (PUT: the same as GET)
         * @description Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.
         */
        put: operations["authorizeRequestPut"];
        /**
         * Forward-auth check (POST: the same as GET)
         * @description Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.
         */
        post: operations["authorizeRequestPost"];
        /**
         * Forward-auth check (DELETE: the same as GET)
         * @description Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.
         */
        delete: operations["authorizeRequestDelete"];
        options?: never;
        head?: never;
        /**
         * Forward-auth check (PATCH: the same as GET)
         * @description Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.
         */
        patch: operations["authorizeRequestPatch"];
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys (never their secrets)
         * @description Oldest first; up to `limit` per page, then follow `next_cursor`. Revoked and expired keys are listed too.
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create a scoped API key
         * @description 201 with the secret, shown this once; only its SHA-256 is stored. A key (not the root token) may create only keys within its own scopes and name patterns, and none that outlives it: the new key's `expires_at` is at most the creating key's (omitted: the same; later: 422), and revoking the creating key revokes it.
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An API key (never its secret) */
        get: operations["getKey"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Every secret of the key stops working, and of every key it made (directly or through keys it made: `made_by`), each with its audit row: in this isolate at once, in every other within 5 s (their key cache's period).
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a new secret; the old one works for the overlap
         * @description The key keeps its id, name, scopes and names. Its old secret(s) work until `old_secrets_expire_at`, then only the new one. Without a body, as with `{}`: the default overlap. A key (not the root token) may rotate itself, or a key it could have created: within its scopes and names, and expiring no later than it does (else 403).
         */
        post: operations["rotateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log of configuration changes
         * @description Newest first; up to `limit` per page, then follow `next_cursor`. Every configuration write (policies, overrides, semaphore sizes, stock, webhook sources, keys) has its row, written in the same transaction; decisions are not audited. Kept AUDIT_RETENTION_DAYS (default 90).
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Counters and gauges in the Prometheus text exposition format (0.0.4), for a Prometheus that scrapes with `authorization: {credentials: <token>}`. Counters are sums of per-minute rows written by the isolates after their responses (at most `METRICS_FLUSH_MS` late, 2 s by default) and never go down. No label carries a rate-limit key; policies past `METRICS_MAX_POLICIES` (100) share `policy="_other"`. See docs/observability.md.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Problem: {
            /** @description What went wrong, as a relative URI `/problems/<slug>`; the same for the same cause on every route */
            type: string;
            title: string;
            status: number;
            detail?: string;
        } & {
            [key: string]: unknown;
        };
        Reservation: {
            /** Format: uuid */
            id: string;
            resource: string;
            holder: string;
            /**
             * Format: date-time
             * @description Inclusive, UTC
             */
            start: string;
            /**
             * Format: date-time
             * @description Exclusive, UTC
             */
            end: string;
            metadata: {
                [key: string]: unknown;
            } | null;
            /** @enum {string} */
            status: "active" | "cancelled";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            cancelled_at: string | null;
        };
        ReservationConflict: components["schemas"]["Problem"] & ({
            conflicts: components["schemas"]["ReservationConflictItem"][];
        } & {
            [key: string]: unknown;
        });
        ReservationConflictItem: {
            /** Format: uuid */
            id: string;
            holder: string;
            start: string;
            end: string;
        };
        ValidationProblem: components["schemas"]["Problem"] & ({
            errors: {
                in: string;
                path: string;
                message: string;
            }[];
        } & {
            [key: string]: unknown;
        });
        NewReservation: {
            /**
             * @description What is reserved (e.g. datacenter/server). 1–200 characters, matched verbatim.
             * @example 223/345
             */
            resource: string;
            /**
             * @description Who holds it. 1–200 characters.
             * @example user-3126
             */
            holder: string;
            /**
             * Format: date-time
             * @example 2021-01-01T14:45:00Z
             */
            start: string;
            /**
             * Format: date-time
             * @example 2021-01-01T14:45:00Z
             */
            end: string;
            /** @description Any JSON object, stored and returned as is; at most 262144 bytes as JSON. */
            metadata?: {
                [key: string]: unknown;
            };
        };
        Availability: {
            resource: string;
            from: string;
            /** @description The end of what this answer covers: the window's end, or where `next_from` starts */
            to: string;
            free: components["schemas"]["Interval"][];
            busy: components["schemas"]["Interval"][];
            /**
             * Format: date-time
             * @description Present when the window holds more than `limit` reservations: the answer stops here (`to`); ask again with `from` set to it for the rest
             */
            next_from?: string;
        };
        Interval: {
            /** Format: date-time */
            start: string;
            /** Format: date-time */
            end: string;
        };
        Lease: {
            /**
             * Format: uuid
             * @description Your proof of ownership for renew and release: keep it private
             */
            lease_id: string;
            key: string;
            holder: string;
            /** @description Strictly increasing per key across every grant, including takeovers after expiry */
            fencing_token: number;
            ttl_ms: number;
            /** Format: date-time */
            claimed_at: string;
            /** Format: date-time */
            expires_at: string;
        };
        LockHeld: components["schemas"]["Problem"] & ({
            key: string;
            holder: string;
            expires_at: string;
        } & {
            [key: string]: unknown;
        });
        LeaseAcquire: {
            /**
             * @description Who holds it (for GET and 409 answers). 1–200 characters.
             * @example worker-7
             */
            holder: string;
            /**
             * @description 1000–3600000 ms
             * @example 30000
             */
            ttl_ms: number;
        };
        NotCurrentHolder: components["schemas"]["Problem"] & ({
            /** @enum {string} */
            state: "released" | "timed_out" | "unknown";
            released_at: string | null;
            timed_out_at: string | null;
        } & {
            [key: string]: unknown;
        });
        LeaseRenew: {
            /**
             * Format: uuid
             * @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e
             */
            lease_id: string;
            /** @description New TTL from now; default: the lease's TTL so far */
            ttl_ms?: number;
        };
        LeaseRelease: {
            /**
             * Format: uuid
             * @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e
             */
            lease_id: string;
        };
        LeaseState: {
            key: string;
            held: boolean;
            holder: string | null;
            fencing_token: number | null;
            claimed_at: string | null;
            expires_at: string | null;
        };
        LeaseList: {
            items: components["schemas"]["LeaseState"][];
            next_cursor: string | null;
        };
        Semaphore: {
            name: string;
            permits: number;
            default_ttl_ms: number;
            in_use: number;
            available: number;
            /** @description Current holders by slot: the `holders` lowest (after `after_slot` for a single semaphore; a PUT answers the first 1000) */
            holders: {
                slot: number;
                holder: string;
                fencing_token: number;
                claimed_at: string;
                expires_at: string;
            }[];
            /**
             * @description Holders after the last one in `holders`: for a single semaphore, ask again with `after_slot` set to that slot
             * @example 0
             */
            more_holders: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        SemaphoreConfig: {
            /**
             * @description How many holders at once, 1–10000.
             * @example 4
             */
            permits: number;
            /**
             * @description TTL of a claim that does not give one, 1000–3600000 ms. Omitted: 60000 for a new semaphore, and a resize keeps the semaphore's own.
             * @example 90000
             */
            default_ttl_ms?: number;
        };
        SemaphoreList: {
            items: components["schemas"]["Semaphore"][];
            next_cursor: string | null;
        };
        Permit: {
            /** Format: uuid */
            permit_id: string;
            semaphore: string;
            /** @description 0-based; the lowest free slot at the time of the claim */
            slot: number;
            holder: string;
            /** @description Strictly increasing per semaphore across every grant */
            fencing_token: number;
            ttl_ms: number;
            /** Format: date-time */
            claimed_at: string;
            /** Format: date-time */
            expires_at: string;
        };
        SemaphoreFull: components["schemas"]["Problem"] & ({
            permits: number;
            in_use: number;
            earliest_expires_at: string;
        } & {
            [key: string]: unknown;
        });
        SemaphoreAcquire: {
            /**
             * @description Who holds it (for GET and 409 answers). 1–200 characters.
             * @example worker-7
             */
            holder: string;
            /** @description 1000–3600000 ms; default: the semaphore's default_ttl_ms */
            ttl_ms?: number;
        };
        SemaphoreRenew: {
            /**
             * Format: uuid
             * @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e
             */
            permit_id: string;
            /** @description New TTL from now; default: the claim's TTL so far */
            ttl_ms?: number;
        };
        SemaphoreRelease: {
            /**
             * Format: uuid
             * @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e
             */
            permit_id: string;
        };
        Invoice: {
            /** Format: uuid */
            id: string;
            subscription_id: string;
            /** @enum {string} */
            kind: "usage" | "recurring";
            /** @description 1, 2, 3… per subscription (max + 1, safe under the lock) */
            number: number;
            work_ms: number;
            /** Format: date-time */
            started_at: string;
            /** Format: date-time */
            finished_at: string;
        };
        LockUnavailable: components["schemas"]["Problem"] & ({
            key: string;
        } & {
            [key: string]: unknown;
        });
        InvoiceGeneration: {
            /** @example SUB-1234 */
            subscription_id: string;
            /**
             * @description Usage-related or recurring-charges invoice (the seed's M1 and M2)
             * @enum {string}
             */
            kind: "usage" | "recurring";
            /**
             * @description Simulated generation time, 0–3000 ms (pg_sleep inside the locked transaction), so a second request can be seen to collide. Default 0.
             * @default 0
             */
            work_ms?: number;
        };
        InventoryNights: {
            item: string;
            from: string;
            to: string;
            nights: components["schemas"]["InventoryNight"][];
        };
        InventoryNight: {
            /** Format: date */
            date: string;
            capacity: number;
            booked: number;
            held: number;
            available: number;
        };
        InventoryStockBelowTaken: components["schemas"]["Problem"] & ({
            /** @description `stock-below-taken`: the nights that have more booked + held than `quantity`. Absent from a `concurrent-conflict`. */
            nights?: {
                date: string;
                capacity: number;
                booked: number;
                held: number;
            }[];
        } & {
            [key: string]: unknown;
        });
        InventoryStock: {
            /**
             * Format: date
             * @description First night (inclusive)
             * @example 2030-03-29
             */
            from: string;
            /**
             * Format: date
             * @description Night after the last (exclusive)
             * @example 2030-03-29
             */
            to: string;
            /** @description Rooms per night (capacity), 0–10000 */
            quantity: number;
        };
        InventoryBooking: {
            /** Format: uuid */
            booking_id: string;
            item: string;
            holder: string;
            /** Format: date */
            check_in: string;
            /**
             * Format: date
             * @description Exclusive: the morning of departure
             */
            check_out: string;
            quantity: number;
            /** @enum {string} */
            status: "held" | "confirmed" | "cancelled" | "expired";
            /**
             * Format: date-time
             * @description When the hold lapses (database clock); null if booked without a hold
             */
            expires_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            confirmed_at: string | null;
            /** Format: date-time */
            cancelled_at: string | null;
        };
        InventoryShort: components["schemas"]["Problem"] & ({
            short: {
                date: string;
                available: number;
            }[];
        } & {
            [key: string]: unknown;
        });
        NewInventoryBooking: {
            /**
             * Format: date
             * @example 2030-03-29
             */
            check_in: string;
            /**
             * Format: date
             * @description Exclusive: nights check_in … check_out − 1 are taken
             * @example 2030-03-29
             */
            check_out: string;
            /** @description Rooms, taken on every night */
            quantity: number;
            /** @example user-3126 */
            holder: string;
            /** @description Hold (cart) instead of confirming: the rooms are held until expires_at = now + hold_ms on the database clock */
            hold_ms?: number;
        };
        InventoryBookingConflict: components["schemas"]["Problem"] & ({
            booking: components["schemas"]["InventoryBooking"];
        } & {
            [key: string]: unknown;
        });
        WebhookSource: {
            source: string;
            /** @enum {string} */
            scheme: "standard-webhooks" | "stripe" | "github" | "shopify" | "slack" | "hmac";
            /** @description ±seconds a signed timestamp may differ from the database clock; null: the scheme signs none */
            tolerance_s: number | null;
            ordering_key: string | null;
            /** @description The generic scheme's settings (scheme hmac); null otherwise */
            hmac: components["schemas"]["WebhookHmacSettings"] | null;
            /** @description Seconds within which a delivery with the same signed bytes is a duplicate whatever its id; null: none */
            replay_window_s: number | null;
            /**
             * Format: date-time
             * @description Until when the previous secret is still accepted (a rotation); null: only the current one
             */
            previous_secret_expires_at: string | null;
            /** @description The latest deliveries refused before they were verified (at most 10, newest first), with why: the sender only ever gets the same 401. A rejection arriving while another of this source is being recorded may be left out */
            recent_rejections: components["schemas"]["WebhookRejection"][];
            /** @description Where its events are forwarded (never the forward secret); null: pull consumers only */
            forward: components["schemas"]["WebhookForward"] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        WebhookHmacSettings: {
            /**
             * @description The header carrying the signature
             * @example X-Signature
             */
            header: string;
            /**
             * @default sha256
             * @enum {string}
             */
            algorithm?: "sha256" | "sha1" | "sha512";
            /**
             * @default hex
             * @enum {string}
             */
            encoding?: "hex" | "base64";
            /**
             * @description Text before the signature in the header
             * @default
             * @example sha256=
             */
            prefix?: string;
            /**
             * @description What is signed: {body} (the raw bytes) once, with {timestamp} and {id} around it as the sender signs them
             * @default {body}
             * @example {timestamp}.{body}
             */
            signed?: string;
            /**
             * @description The header with the signed timestamp (Unix seconds); tolerance_s applies. null: the sender signs none
             * @default null
             */
            timestamp_header?: string | null;
            id: components["schemas"]["WebhookPlace"];
            /**
             * @description Where the event type is (stored as the event's event_type); null: none
             * @default null
             */
            event_type?: {
                header: string;
            } | {
                pointer: string;
            } | null;
            /**
             * @description true: take the id from a header outside the signed bytes although a captured delivery replayed with a fresh id is then stored again (docs/webhooks.md, Replays)
             * @default false
             */
            allow_unsigned_id?: boolean;
        };
        /** @description Where the sender's own event id is; deliveries are deduplicated on it. It must be inside the signed bytes (a JSON pointer into the body, or a header that `signed` uses as {id}) unless `allow_unsigned_id` is true or the source can tell a replay otherwise (a signed timestamp and `replay_window_s` at least twice `tolerance_s`) */
        WebhookPlace: {
            header: string;
        } | {
            pointer: string;
        };
        WebhookRejection: {
            /** Format: date-time */
            at: string;
            /** @enum {string} */
            reason: "missing-header" | "malformed-header" | "signature-mismatch" | "timestamp-outside-tolerance";
            /** @description The header at fault, when one is */
            header?: string;
            /** @description What to fix (never the expected signature or any part of a secret) */
            detail: string;
        };
        WebhookForward: {
            url?: string;
            binding?: string;
            path?: string;
            timeout_ms: number;
            retry_schedule_ms: number[];
            ordered: boolean;
            /**
             * Format: date-time
             * @description Until when the previous forward secret still signs beside the current one; null: only the current one
             */
            previous_secret_expires_at: string | null;
            /**
             * Format: date-time
             * @description When the target answered 410 Gone: nothing is forwarded until the source is PUT again; null: forwarding
             */
            stopped_at: string | null;
            stopped_reason: string | null;
        };
        /** @description Which fields and secrets each scheme takes (`anyOf`, one alternative per kind of scheme): `hmac` for scheme hmac only, and required there; `tolerance_s` only where deliveries carry a signed timestamp (not github or shopify, nor hmac without `timestamp_header`); `replay_window_s` only for github, shopify and hmac; `secret` in the scheme's format. An hmac source whose id is a header its `signed` template does not sign is refused (422 naming `hmac.id`) unless `hmac.allow_unsigned_id` is true or it has a signed timestamp and `replay_window_s` of at least twice `tolerance_s`. */
        WebhookSourceInput: {
            /**
             * @description How the sender signs (docs/webhooks.md has one section per sender). Default standard-webhooks
             * @default standard-webhooks
             * @enum {string}
             */
            scheme?: "standard-webhooks" | "stripe" | "github" | "shopify" | "slack" | "hmac";
            /**
             * @description The signing secret shared with the sender, as the sender shows it (standard-webhooks: whsec_ + base64 of 24–64 bytes; stripe: the endpoint's whsec_…; others: 8–1024 printable characters). Write-only: never returned.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
            /** @description Rotation: how much longer (ms, from now, up to 30 days) the previous secret is still accepted. With a new `secret`, the stored one becomes the previous secret; with the same `secret`, the previous one's time is set anew; 0 retires it. Omitted: a new secret replaces the old one outright, and the same secret leaves a previous one as it is. */
            previous_secret_ttl_ms?: number;
            /** @description Accepted clock skew of the signed timestamp, ±seconds (default 300). Only for schemes that sign one */
            tolerance_s?: number;
            /**
             * @description Events with the same value at this JSON pointer are never claimed concurrently, and are handed out in received order
             * @example /data/subscription_id
             */
            ordering_key?: string | null;
            hmac?: components["schemas"]["WebhookHmacSettings"] & unknown;
            /** @description Only for the schemes whose id may be outside the signed bytes (github, shopify, hmac): a verified delivery whose signed bytes equal those of an event received within this many seconds (up to 7 days) is that event again, whatever id it carries. Omitted: none */
            replay_window_s?: number;
            /** @description Where each event stored is delivered, signed with Standard Webhooks headers (docs/webhooks.md, Forwarding). Omitted or null: nowhere, consumers pull. Putting the source again resumes forwarding a 410 stopped */
            forward?: {
                /**
                 * @description Where events are POSTed: https, or plain http on loopback only (localhost, 127.0.0.0/8, [::1]). Exactly one of url and binding
                 * @example https://api.example.com/hooks/billing
                 */
                url?: string;
                /**
                 * @description A Worker this one reaches over a Service Binding (`[[services]]` in wrangler.toml) of that name
                 * @example BILLING
                 */
                binding?: string;
                /** @description With binding only: the path requested of the bound Worker (default /) */
                path?: string;
                /**
                 * @description The forward secret the target verifies with (Standard Webhooks: whsec_ + base64 of 24–64 bytes; the `standardwebhooks` library takes it as is). Write-only: never returned
                 * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
                 */
                secret: string;
                /** @description Rotation: how much longer (ms, up to 30 days) the forward secret stored until now keeps signing beside the new one (two v1 signatures), so the target can move to the new one; 0 retires it. Omitted: a new secret replaces the old one outright */
                previous_secret_ttl_ms?: number;
                /**
                 * @description How long one attempt waits for the target's answer (100 ms–25 s, default 10 s); past it the attempt failed (timeout)
                 * @default 10000
                 */
                timeout_ms?: number;
                /**
                 * @description The wait before each retry after a failed attempt (1 s–24 h each, at most 20; up to 20 % is added at random; a longer Retry-After from the target is honoured). Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. When it is spent the event is `failed`
                 * @default [
                 *       5000,
                 *       300000,
                 *       1800000,
                 *       7200000,
                 *       18000000,
                 *       36000000,
                 *       36000000
                 *     ]
                 */
                retry_schedule_ms?: number[];
                /**
                 * @description true: an event is not delivered before the earlier events of its ordering value (the source's ordering_key) are delivered or failed. Needs ordering_key
                 * @default false
                 */
                ordered?: boolean;
            } | null;
        } & ({
            /** @constant */
            scheme?: "standard-webhooks";
            secret?: string;
            hmac?: unknown;
            replay_window_s?: unknown;
        } | {
            /** @constant */
            scheme: "stripe";
            secret?: string;
            hmac?: unknown;
            replay_window_s?: unknown;
        } | {
            /** @constant */
            scheme: "slack";
            secret?: string;
            hmac?: unknown;
            replay_window_s?: unknown;
        } | {
            /** @enum {unknown} */
            scheme: "github" | "shopify";
            secret?: string;
            hmac?: unknown;
            tolerance_s?: unknown;
        } | {
            /** @constant */
            scheme: "hmac";
            secret?: string;
            hmac: {
                timestamp_header: string;
            };
        } | {
            /** @constant */
            scheme: "hmac";
            secret?: string;
            hmac: {
                timestamp_header?: null;
            };
            tolerance_s?: unknown;
        });
        WebhookSourceList: {
            items: components["schemas"]["WebhookSource"][];
            next_cursor: string | null;
        };
        WebhookReceived: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "received";
        };
        ClaimedWebhookEvent: {
            /** Format: uuid */
            id: string;
            webhook_id: string;
            event_type: string | null;
            payload?: unknown;
            ordering_value: string | null;
            /** Format: date-time */
            received_at: string;
            /** Format: date-time */
            claim_expires_at: string;
            /**
             * Format: uuid
             * @description This claim's receipt: the ack must carry it. A later claim of the event (after this one lapsed) gets another, and this one no longer acknowledges it.
             */
            receipt: string;
        };
        WebhookClaim: {
            /**
             * @description At most this many events (1–100, default 10)
             * @default 10
             */
            limit?: number;
            /**
             * @description Claim lifetime: unacknowledged events become claimable again after it (100 ms–12 h, default 30 s)
             * @default 30000
             */
            visibility_ms?: number;
        };
        WebhookEvent: {
            /** Format: uuid */
            id: string;
            /** @description The sender's own id, which deliveries are deduplicated on */
            webhook_id: string;
            /** @description The sender's event type (Stripe type, X-GitHub-Event, X-Shopify-Topic, Slack event.type, …) */
            event_type: string | null;
            payload?: unknown;
            /** @enum {string} */
            status: "received" | "claimed" | "processed";
            ordering_value: string | null;
            /**
             * Format: date-time
             * @description The signed timestamp; null for schemes that sign none
             */
            webhook_timestamp: string | null;
            /** Format: date-time */
            received_at: string;
            /** Format: date-time */
            claim_expires_at: string | null;
            claims: number;
            /** Format: date-time */
            processed_at: string | null;
            delivery: components["schemas"]["WebhookEventDelivery"] | null;
        };
        /** @description Forwarding of the event; null when its source did not forward it */
        WebhookEventDelivery: {
            /**
             * @description pending (an attempt due, waiting or in flight), delivered (a 2xx), failed (the schedule spent: a dead letter)
             * @enum {string}
             */
            state: "pending" | "delivered" | "failed";
            attempts: number;
            in_flight: boolean;
            /** Format: date-time */
            next_attempt_at: string | null;
            /** Format: date-time */
            delivered_at: string | null;
            /** Format: date-time */
            failed_at: string | null;
        };
        WebhookAck: {
            /**
             * Format: uuid
             * @description The `receipt` the claim returned with this event
             * @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e
             */
            receipt: string;
        };
        WebhookRedelivered: {
            redelivered: number;
            more: boolean;
        };
        WebhookRedeliverFailed: {
            /**
             * Format: date-time
             * @description Failed events received at or after this time
             * @example 2021-01-01T14:45:00Z
             */
            since: string;
            /**
             * Format: date-time
             * @description … and before this time
             * @example 2021-01-01T14:45:00Z
             */
            until: string;
            /**
             * @description At most this many (default and most 1000); `more` says whether to call again
             * @default 1000
             */
            limit?: number;
        };
        WebhookAttemptList: {
            items: components["schemas"]["WebhookAttempt"][];
            next_cursor: string | null;
        };
        WebhookAttempt: {
            /** @description 1 for the event's first attempt, then 2, 3, … */
            n: number;
            /**
             * @description received: at once after storing; schedule: a retry (or a later event of an ordered value); redeliver: asked for
             * @enum {string}
             */
            trigger: "received" | "schedule" | "redeliver";
            target: string;
            /** Format: date-time */
            started_at: string;
            /** Format: date-time */
            finished_at: string | null;
            /** @description The target's HTTP status; null: no answer (timeout, network error) or still in flight */
            status: number | null;
            /**
             * @description null while in flight; lost: its sender stopped before recording it (it counts as a failed attempt)
             * @enum {string|null}
             */
            outcome: "delivered" | "failed" | "timeout" | "error" | "gone" | "lost" | null;
            latency_ms: number | null;
            /** @description The first 1024 characters of the answer's body */
            response: string | null;
            error: string | null;
            /** @description The target's Retry-After, when it sent one with a failure */
            retry_after_ms: number | null;
        };
        RateLimitPolicyList: {
            items: components["schemas"]["RateLimitPolicy"][];
            next_cursor: string | null;
        };
        RateLimitPolicy: {
            name: string;
            /** @enum {string} */
            algorithm: "fixed_window" | "sliding_window" | "token_bucket";
            limit: number;
            window_ms: number;
            log: boolean;
            history_ms: number;
            timeout_ms: number;
            /** @enum {string} */
            on_unavailable: "deny" | "allow";
            shadow: boolean;
            durable: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        RateLimitOverrideList: {
            items: components["schemas"]["RateLimitOverride"][];
            next_cursor: string | null;
        };
        RateLimitOverride: {
            policy: string;
            key: string;
            limit: number;
            valid_from: string;
            valid_to: string | null;
            shadow: boolean;
        };
        RateLimitPolicyInput: {
            /**
             * @description `fixed_window` (exact), `sliding_window` (weighted previous window, approximate), `token_bucket` (GCRA, exact)
             * @enum {string}
             */
            algorithm: "fixed_window" | "sliding_window" | "token_bucket";
            /**
             * @description Units per window (token bucket: capacity, refilled at `limit` per `window_ms`)
             * @example 100
             */
            limit: number;
            /**
             * @description 1 ms to 366 days
             * @example 60000
             */
            window_ms: number;
            /**
             * @description Write one request-log row per check (same statement, no extra round trip)
             * @default false
             */
            log?: boolean;
            /**
             * @description How long finished windows (usage history) and log rows are kept; default 7 days
             * @default 604800000
             */
            history_ms?: number;
            /**
             * @description The longest a check on this policy may take (1–60000 ms, default 5000, the Worker's default request budget; never more than DB_BUDGET_MS). Past it the check answers per `on_unavailable`.
             * @default 5000
             */
            timeout_ms?: number;
            /**
             * @description When the database does not answer within `timeout_ms` or cannot be reached: `deny` (fail closed: 503 + Retry-After) or `allow` (fail open: 200, `allowed: true`, `reason: "timeout"` or `"unavailable"`, header `Admit-RateLimit-Enforced: false`). With several policies, any `deny` decides.
             * @default deny
             * @enum {string}
             */
            on_unavailable?: "deny" | "allow";
            /**
             * @description Shadow mode: every check is decided, counted and logged as if enforced, but never refused — a call the limit would refuse is answered 200 with `shadow: true` and `Admit-RateLimit-Shadow: would-refuse`, and counted in `would_refuse`. A key's override in shadow mode puts that key in shadow while it is in force.
             * @default false
             */
            shadow?: boolean;
            /**
             * @description `true`: every check's counter write commits synchronously, so a database crash loses none (quotas that bill). Default `false`: counters commit asynchronously, so a crash may lose the last moments of counting (a bounded over-admission, docs/ratelimits.md#durability); refusals and everything else Admit stores are durable either way.
             * @default false
             */
            durable?: boolean;
        };
        RateLimitOverrideConflict: components["schemas"]["Problem"] & ({
            conflicts: components["schemas"]["RateLimitOverride"][];
        } & {
            [key: string]: unknown;
        });
        RateLimitOverrideInput: {
            limit: number;
            /**
             * Format: date-time
             * @description Inclusive
             * @example 2021-01-01T14:45:00Z
             */
            valid_from: string;
            /**
             * Format: date-time
             * @description Exclusive; omitted or null = open-ended
             * @example 2021-01-01T14:45:00Z
             */
            valid_to?: string;
            /**
             * @description Shadow mode while this override is in force: the key's checks are decided under its limit and counted, never refused
             * @default false
             */
            shadow?: boolean;
        };
        RateLimitResult: {
            allowed: boolean;
            /** @description With `policies`: the most restrictive one (denied: the refusing policy with the longest wait; admitted: the fewest units left) */
            policy: string;
            key: string;
            limit: number;
            remaining: number;
            reset_ms: number;
            retry_after_ms?: number;
            /**
             * @description `limit`: the database decided; `cache`: this isolate's deny cache refused without asking; `timeout`/`unavailable`: the database did not decide within `timeout_ms` and the fail mode answered; `not-checked`: a policy a cached answer did not need
             * @enum {string}
             */
            reason: "limit" | "cache" | "timeout" | "unavailable" | "not-checked";
            /** @description With `policies`: one result per policy, in the order asked */
            results?: components["schemas"]["RateLimitPolicyResult"][];
            /** @description With `policies`, when denied: the policies that refused */
            violated_policies?: string[];
            /**
             * @description A limit in shadow mode would have refused this call; it was let through (header `Admit-RateLimit-Shadow: would-refuse`)
             * @enum {boolean}
             */
            shadow?: true;
        };
        RateLimitPolicyResult: {
            /** @description This policy's own verdict (absent when not checked) */
            allowed?: boolean;
            policy: string;
            key: string;
            limit?: number;
            remaining?: number;
            reset_ms?: number;
            retry_after_ms?: number;
            /**
             * @description `limit`: the database decided; `cache`: this isolate's deny cache refused without asking; `timeout`/`unavailable`: the database did not decide within `timeout_ms` and the fail mode answered; `not-checked`: a policy a cached answer did not need
             * @enum {string}
             */
            reason: "limit" | "cache" | "timeout" | "unavailable" | "not-checked";
            /**
             * @description This policy is in shadow mode for the key and would refuse: it did not refuse the check
             * @enum {boolean}
             */
            shadow?: true;
        };
        RateLimitUnenforced: {
            /** @enum {boolean} */
            allowed: true;
            policy?: string;
            policies?: string[];
            key: string;
            /** @enum {string} */
            reason: "timeout" | "unavailable";
            /**
             * @description `unknown`: the check was sent and may have consumed a unit; `none`: it certainly did not
             * @enum {string}
             */
            consumed: "unknown" | "none";
            timeout_ms: number;
        };
        /** @description An allow list entry let the call through: nothing was counted (header `Admit-RateLimit-List: allow`) */
        RateLimitAllowListed: {
            /** @enum {boolean} */
            allowed: true;
            policy?: string;
            policies?: string[];
            key: string;
            /** @enum {string} */
            reason: "allow-list";
            entry: components["schemas"]["RateLimitListMatch"];
        };
        RateLimitListMatch: {
            /** @enum {string} */
            list: "deny" | "allow";
            /** @description The policy the entry is for; null: every policy (global) */
            policy: string | null;
            /** @enum {string} */
            kind: "key" | "prefix" | "ip" | "country";
            value: string;
            reason: string | null;
        };
        RateLimitDeniedByList: components["schemas"]["Problem"] & ({
            policy?: string;
            policies?: string[];
            key: string;
            /** @enum {boolean} */
            allowed: false;
            entry: components["schemas"]["RateLimitListMatch"];
        } & {
            [key: string]: unknown;
        });
        RateLimitQuotaExceeded: components["schemas"]["Problem"] & ({
            allowed: boolean;
            /** @description With `policies`: the most restrictive one (denied: the refusing policy with the longest wait; admitted: the fewest units left) */
            policy: string;
            key: string;
            limit: number;
            remaining: number;
            reset_ms: number;
            retry_after_ms?: number;
            /**
             * @description `limit`: the database decided; `cache`: this isolate's deny cache refused without asking; `timeout`/`unavailable`: the database did not decide within `timeout_ms` and the fail mode answered; `not-checked`: a policy a cached answer did not need
             * @enum {string}
             */
            reason: "limit" | "cache" | "timeout" | "unavailable" | "not-checked";
            /** @description With `policies`: one result per policy, in the order asked */
            results?: components["schemas"]["RateLimitPolicyResult"][];
            /** @description With `policies`, when denied: the policies that refused */
            violated_policies?: string[];
            /**
             * @description A limit in shadow mode would have refused this call; it was let through (header `Admit-RateLimit-Shadow: would-refuse`)
             * @enum {boolean}
             */
            shadow?: true;
            /** @description draft-ietf-httpapi-ratelimit-headers-11 §6 (quota-exceeded problem type) */
            "violated-policies": string[];
        } & {
            [key: string]: unknown;
        });
        RateLimitCheck: {
            /**
             * @description One policy. Give exactly one of `policy` and `policies`
             * @example api
             */
            policy?: string;
            /**
             * @description 1–8 distinct policies checked at once, all-or-nothing: admitted only if every one admits; when any denies, none consumes (each still counts the attempt)
             * @example [
             *       "burst",
             *       "daily"
             *     ]
             */
            policies?: string[];
            /** @example customer-42 */
            key: string;
            /**
             * @description Units this call takes (default 1). 0 = peek: consumes nothing; allowed means one unit fits
             * @default 1
             */
            cost?: number;
            /** @description Small JSON object stored in the request log (policies with `log: true`) */
            info?: {
                [key: string]: unknown;
            };
            /**
             * @description The client's IP address (v4 or v6), matched against the deny/allow lists' ip entries (text that is not an address matches none). Not stored
             * @example 192.0.2.7
             */
            ip?: string;
            /**
             * @description The client's country (ISO 3166-1 alpha-2), matched against the lists' country entries
             * @example NL
             */
            country?: string;
        };
        RateLimitRefundResult: {
            policy: string;
            key: string;
            limit: number;
            remaining: number;
            reset_ms: number;
            refunded: number;
        };
        RateLimitRefund: {
            policy: string;
            key: string;
            cost: number;
        };
        RateLimitUsage: {
            window_start: string;
            window_end: string;
            admitted: number;
            attempted: number;
            rejected: number;
            /** @description Of `rejected`, the calls shadow mode let through */
            would_refuse: number;
            consumed: number;
            policy: string;
            key: string;
            /** @enum {string} */
            algorithm: "fixed_window" | "sliding_window" | "token_bucket";
            limit: number;
            window_ms: number;
            /** @description Whether the key's checks are in shadow mode now (the policy's, or the override in force) */
            shadow: boolean;
            /** @description With from/to (fixed and sliding windows): stored windows starting in [from, to), oldest first, at most 1000 */
            windows: {
                window_start: string;
                window_end: string;
                admitted: number;
                attempted: number;
                rejected: number;
                /** @description Of `rejected`, the calls shadow mode let through */
                would_refuse: number;
                consumed: number;
            }[] | null;
            /**
             * Format: date-time
             * @description Until when the deny cache of the isolate that answered refuses this key's one-unit checks without asking the database (its own clock); null when it does not. Other isolates keep their own caches.
             */
            deny_cached_until: string | null;
        };
        RateLimitReset: {
            key: string;
            /** @description The policies whose counters of the key were reset (none: the key had used nothing) */
            policies: string[];
            /**
             * Format: date-time
             * @description The database's clock at the reset
             */
            at: string;
        };
        RateLimitListEntry: {
            /** @enum {string} */
            list: "deny" | "allow";
            /** @description null: every policy (global) */
            policy: string | null;
            /**
             * @description `key`: the limited key, exactly; `prefix`: every key starting with `value`; `ip`: an address or network (CIDR, v4 or v6) the client's address lies in; `country`: an ISO 3166-1 alpha-2 code
             * @enum {string}
             */
            kind: "key" | "prefix" | "ip" | "country";
            /** @description As stored: an ip value as its network (`192.0.2.7/32`), a country upper-case */
            value: string;
            reason: string | null;
            expires_at: string | null;
            created_at: string;
            updated_at: string;
            expired: boolean;
        };
        RateLimitListEntryInput: {
            /**
             * @description `key`: the limited key, exactly; `prefix`: every key starting with `value`; `ip`: an address or network (CIDR, v4 or v6) the client's address lies in; `country`: an ISO 3166-1 alpha-2 code
             * @enum {string}
             */
            kind: "key" | "prefix" | "ip" | "country";
            /** @example customer-42 */
            value: string;
            /** @description The policy the entry is for; omitted: every policy (global) */
            policy?: string;
            /**
             * @description Why: sent back in a denial's problem
             * @example card testing from this customer
             */
            reason?: string;
            /**
             * Format: date-time
             * @description From this moment the entry no longer applies; omitted: never
             * @example 2021-01-01T14:45:00Z
             */
            expires_at?: string;
        };
        RateLimitListPage: {
            items: components["schemas"]["RateLimitListEntry"][];
            next_cursor: string | null;
        };
        RateLimitKeyList: {
            policy: string;
            /** @enum {string} */
            window: "current" | "1h";
            /** @enum {string} */
            order: "denied" | "used";
            /**
             * Format: date-time
             * @description Start of the first window counted
             */
            from: string;
            /**
             * Format: date-time
             * @description End of the current window
             */
            window_end: string;
            items: components["schemas"]["RateLimitKeyUsage"][];
            next_cursor: string | null;
        };
        RateLimitKeyUsage: {
            key: string;
            admitted: number;
            attempted: number;
            rejected: number;
            consumed: number;
        };
        RateLimitPolicyDecisions: {
            policy: string;
            items: {
                /** Format: date-time */
                minute: string;
                allowed: number;
                denied: number;
                /** @description Refusals of shadow mode, let through */
                would_refuse: number;
                unenforced: number;
                unavailable: number;
            }[];
        };
        /** @description `on_missing=allow` and the request had no key: let through, nothing counted */
        RateLimitAuthzNoKey: {
            /** @enum {boolean} */
            allowed: true;
            /** @enum {string} */
            reason: "no-key";
            detail: string;
        };
        ApiKeyCreated: components["schemas"]["ApiKey"] & {
            /**
             * @description The secret, shown this once: `Authorization: Bearer <secret>`
             * @example admit_…
             */
            secret: string;
        };
        ApiKey: {
            /** Format: uuid */
            id: string;
            name: string;
            scopes: string[];
            /** @description Patterns bounding the named things the key may touch; null: any */
            names: string[] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            /**
             * Format: date-time
             * @description When an isolate last looked the key up: at most 5 s (the key cache's period) before its latest use, per isolate
             */
            last_used_at: string | null;
            /**
             * Format: uuid
             * @description The key that created it (null: the root token). It never outlives that key, and is revoked with it
             */
            made_by: string | null;
            /** @description Its live secrets' first characters (two during a rotation's overlap); never a secret or hash */
            secrets: {
                start: string;
                created_at: string;
                expires_at: string | null;
            }[];
        };
        ApiKeyInput: {
            /** @example gateway-eu */
            name: string;
            scopes: string[];
            names?: string[];
            /**
             * Format: date-time
             * @description When the key stops working; omitted: never (made by the root token) or when the key creating it expires. A key creating a key: at most its own expiry (a later one is 422)
             * @example 2021-01-01T14:45:00Z
             */
            expires_at?: string;
        };
        ApiKeyList: {
            items: components["schemas"]["ApiKey"][];
            next_cursor: string | null;
        };
        ApiKeyRevoked: components["schemas"]["ApiKey"] & {
            /** @description The keys it made (directly or not) that this request revoked with it */
            also_revoked: string[];
        };
        ApiKeyRotated: components["schemas"]["ApiKeyCreated"] & {
            /** Format: date-time */
            old_secrets_expire_at: string;
        };
        ApiKeyRotation: {
            /**
             * @description How long the old secret(s) keep working, 0–30 days (default 1 h); 0 ends them at once
             * @default 3600000
             */
            overlap_ms?: number;
        };
        AuditList: {
            items: components["schemas"]["AuditEntry"][];
            next_cursor: string | null;
        };
        AuditEntry: {
            id: number;
            /** Format: date-time */
            at: string;
            /** @description Who made the change: a key (its id and name); id null and name `root` for API_TOKEN, `binding` for the Service Binding (RPC) */
            key: {
                id: string | null;
                name: string;
            };
            /** @example ratelimits.policy.put */
            action: string;
            /** @description The name (or key id) changed */
            target: string;
            /** @description What was asked for, secrets redacted */
            change: {
                [key: string]: unknown;
            };
        };
        /** @description A request with this Idempotency-Key is still running; retry after Retry-After seconds to get its response. */
        IdempotencyKeyInUse: components["schemas"]["Problem"] & {
            /** @constant */
            type?: "/problems/idempotency-key-in-use";
            /** @constant */
            status?: 409;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The database answered `select 1` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        ok: true;
                    };
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database did not answer `select 1` within 4000 ms; retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listReservations: {
        parameters: {
            query: {
                resource: string;
                /**
                 * @description Window start (inclusive); omitted = unbounded
                 * @example 2030-05-01T00:00:00Z
                 */
                from?: string;
                /**
                 * @description Window end (exclusive); omitted = unbounded
                 * @example 2030-05-02T00:00:00Z
                 */
                to?: string;
                /** @description Page size, 1–1000 (default 1000) */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /**
                 * @description `true`: cancelled reservations too (`status: cancelled`, the history)
                 * @example false
                 */
                include_cancelled?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of reservations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *           "resource": "223/345",
                     *           "holder": "alice",
                     *           "start": "2030-05-01T09:00:00Z",
                     *           "end": "2030-05-01T10:00:00Z",
                     *           "metadata": {
                     *             "purpose": "weekly planning"
                     *           },
                     *           "status": "active",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "cancelled_at": null
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        items: components["schemas"]["Reservation"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query resource: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "resource",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "resource": "223/345",
                 *       "holder": "alice",
                 *       "start": "2030-05-01T09:00:00Z",
                 *       "end": "2030-05-01T10:00:00Z",
                 *       "metadata": {
                 *         "purpose": "weekly planning"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["NewReservation"];
            };
        };
        responses: {
            /** @description Reserved */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "resource": "223/345",
                     *       "holder": "alice",
                     *       "start": "2030-05-01T09:00:00Z",
                     *       "end": "2030-05-01T10:00:00Z",
                     *       "metadata": {
                     *         "purpose": "weekly planning"
                     *       },
                     *       "status": "active",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "cancelled_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Overlaps active reservations (listed in `conflicts`); nothing was written. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/reservation-conflict",
                     *       "title": "Reservation overlaps",
                     *       "detail": "\"223/345\" is already reserved during part of [2030-05-01T09:00:00Z, 2030-05-01T10:00:00Z).",
                     *       "status": 409,
                     *       "conflicts": [
                     *         {
                     *           "id": "7a1e5c3b-2f4d-4b8a-8c9e-6d0f1a2b3c4d",
                     *           "holder": "bob",
                     *           "start": "2030-05-01T09:30:00Z",
                     *           "end": "2030-05-01T11:00:00Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ReservationConflict"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getReservation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reservation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "resource": "223/345",
                     *       "holder": "alice",
                     *       "start": "2030-05-01T09:00:00Z",
                     *       "end": "2030-05-01T10:00:00Z",
                     *       "metadata": {
                     *         "purpose": "weekly planning"
                     *       },
                     *       "status": "active",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "cancelled_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No reservation 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path id: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "id",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelReservation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No reservation 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path id: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "id",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getResourceAvailability: {
        parameters: {
            query: {
                /** @example 2030-05-01T08:00:00Z */
                from: string;
                /** @example 2030-05-01T12:00:00Z */
                to: string;
                /** @description The most reservations one answer covers, 1–10000 (default 1000); past them the answer stops and gives `next_from` */
                limit?: number;
            };
            header?: never;
            path: {
                resource: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Free and busy intervals, in order, clipped to the window */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "resource": "223/345",
                     *       "from": "2030-05-01T08:00:00Z",
                     *       "to": "2030-05-01T12:00:00Z",
                     *       "free": [
                     *         {
                     *           "start": "2030-05-01T08:00:00Z",
                     *           "end": "2030-05-01T09:00:00Z"
                     *         },
                     *         {
                     *           "start": "2030-05-01T10:00:00Z",
                     *           "end": "2030-05-01T12:00:00Z"
                     *         }
                     *       ],
                     *       "busy": [
                     *         {
                     *           "start": "2030-05-01T09:00:00Z",
                     *           "end": "2030-05-01T10:00:00Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Availability"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path resource: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "resource",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    acquireLock: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Encode `/` as `%2F`. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "holder": "worker-7",
                 *       "ttl_ms": 30000
                 *     }
                 */
                "application/json": components["schemas"]["LeaseAcquire"];
            };
        };
        responses: {
            /** @description Acquired */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "lease_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "key": "nightly-report",
                     *       "holder": "worker-7",
                     *       "fencing_token": 42,
                     *       "ttl_ms": 30000,
                     *       "claimed_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Lease"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Held by someone else until `expires_at`; see Retry-After. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/lock-held",
                     *       "title": "Lock held",
                     *       "detail": "\"nightly-report\" is held by \"worker-3\" until 2030-04-30T12:00:30.000Z.",
                     *       "status": 409,
                     *       "key": "nightly-report",
                     *       "holder": "worker-3",
                     *       "expires_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["LockHeld"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    renewLock: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Encode `/` as `%2F`. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lease_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                 *       "ttl_ms": 30000
                 *     }
                 */
                "application/json": components["schemas"]["LeaseRenew"];
            };
        };
        responses: {
            /** @description Renewed; `expires_at` is now + ttl, the fencing token unchanged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "lease_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "key": "nightly-report",
                     *       "holder": "worker-7",
                     *       "fencing_token": 42,
                     *       "ttl_ms": 30000,
                     *       "claimed_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": "2030-04-30T12:00:50.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Lease"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not the current lease (released, expired or unknown). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-current-holder",
                     *       "title": "Not the current holder",
                     *       "detail": "Lease timed out; nothing was changed. Acquire again to get a new claim and fencing token.",
                     *       "status": 409,
                     *       "state": "timed_out",
                     *       "released_at": null,
                     *       "timed_out_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["NotCurrentHolder"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    releaseLock: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Encode `/` as `%2F`. */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lease_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e"
                 *     }
                 */
                "application/json": components["schemas"]["LeaseRelease"];
            };
        };
        responses: {
            /** @description Released */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not the current lease (released, expired or unknown). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-current-holder",
                     *       "title": "Not the current holder",
                     *       "detail": "Lease timed out; nothing was changed. Acquire again to get a new claim and fencing token.",
                     *       "status": 409,
                     *       "state": "timed_out",
                     *       "released_at": null,
                     *       "timed_out_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["NotCurrentHolder"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getLock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Encode `/` as `%2F`. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": "nightly-report",
                     *       "held": true,
                     *       "holder": "worker-7",
                     *       "fencing_token": 42,
                     *       "claimed_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["LeaseState"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path key: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "key",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listLocks: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /**
                 * @description Only keys starting with this
                 * @example nightly-
                 */
                prefix?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Held leases */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "key": "nightly-report",
                     *           "held": true,
                     *           "holder": "worker-7",
                     *           "fencing_token": 42,
                     *           "claimed_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": "2030-04-30T12:00:30.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["LeaseList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getSemaphore: {
        parameters: {
            query?: {
                /** @description Holders listed, lowest slots first, 0–1000 (default 1000); `more_holders` counts the rest */
                holders?: number;
                /** @description List holders of slots above this one (the last slot of the previous answer) */
                after_slot?: number;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The semaphore now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "fragile-upstream",
                     *       "permits": 4,
                     *       "default_ttl_ms": 60000,
                     *       "in_use": 1,
                     *       "available": 3,
                     *       "holders": [
                     *         {
                     *           "slot": 0,
                     *           "holder": "worker-7",
                     *           "fencing_token": 12,
                     *           "claimed_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": "2030-04-30T12:01:00.000Z"
                     *         }
                     *       ],
                     *       "more_holders": 0,
                     *       "created_at": "2030-04-01T08:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Semaphore"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No semaphore \"fragile-upstream\": create it with PUT /v1/semaphores/{name}."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putSemaphore: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permits": 4,
                 *       "default_ttl_ms": 60000
                 *     }
                 */
                "application/json": components["schemas"]["SemaphoreConfig"];
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "fragile-upstream",
                     *       "permits": 4,
                     *       "default_ttl_ms": 60000,
                     *       "in_use": 1,
                     *       "available": 3,
                     *       "holders": [
                     *         {
                     *           "slot": 0,
                     *           "holder": "worker-7",
                     *           "fencing_token": 12,
                     *           "claimed_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": "2030-04-30T12:01:00.000Z"
                     *         }
                     *       ],
                     *       "more_holders": 0,
                     *       "created_at": "2030-04-01T08:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Semaphore"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "fragile-upstream",
                     *       "permits": 4,
                     *       "default_ttl_ms": 60000,
                     *       "in_use": 0,
                     *       "available": 4,
                     *       "holders": [],
                     *       "more_holders": 0,
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Semaphore"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listSemaphores: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /**
                 * @description Holders listed per semaphore, lowest slots first, 0–100 (default 10); `more_holders` counts the rest, and `GET /v1/semaphores/{name}` pages through them all
                 * @example 1
                 */
                holders?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Semaphores */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "name": "fragile-upstream",
                     *           "permits": 4,
                     *           "default_ttl_ms": 60000,
                     *           "in_use": 3,
                     *           "available": 1,
                     *           "holders": [
                     *             {
                     *               "slot": 0,
                     *               "holder": "worker-7",
                     *               "fencing_token": 12,
                     *               "claimed_at": "2030-04-30T12:00:00.000Z",
                     *               "expires_at": "2030-04-30T12:01:00.000Z"
                     *             }
                     *           ],
                     *           "more_holders": 2,
                     *           "created_at": "2030-04-01T08:00:00.000Z",
                     *           "updated_at": "2030-04-30T12:00:00.000Z"
                     *         },
                     *         {
                     *           "name": "search-backend",
                     *           "permits": 4,
                     *           "default_ttl_ms": 60000,
                     *           "in_use": 0,
                     *           "available": 4,
                     *           "holders": [],
                     *           "more_holders": 0,
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "updated_at": "2030-04-30T12:00:00.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["SemaphoreList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    acquireSemaphore: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "holder": "worker-7",
                 *       "ttl_ms": 60000
                 *     }
                 */
                "application/json": components["schemas"]["SemaphoreAcquire"];
            };
        };
        responses: {
            /** @description Claimed */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "permit_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "semaphore": "fragile-upstream",
                     *       "slot": 0,
                     *       "holder": "worker-7",
                     *       "fencing_token": 12,
                     *       "ttl_ms": 60000,
                     *       "claimed_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": "2030-04-30T12:01:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Permit"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No semaphore \"fragile-upstream\": create it with PUT /v1/semaphores/{name}."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Every permit is taken; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/semaphore-full",
                     *       "title": "No permit free",
                     *       "status": 429,
                     *       "detail": "All 4 permits of \"fragile-upstream\" are in use; the earliest expires at 2030-04-30T12:00:30.000Z.",
                     *       "permits": 4,
                     *       "in_use": 4,
                     *       "earliest_expires_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["SemaphoreFull"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    renewSemaphore: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permit_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                 *       "ttl_ms": 60000
                 *     }
                 */
                "application/json": components["schemas"]["SemaphoreRenew"];
            };
        };
        responses: {
            /** @description Renewed; `expires_at` is now + ttl */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "permit_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "semaphore": "fragile-upstream",
                     *       "slot": 0,
                     *       "holder": "worker-7",
                     *       "fencing_token": 12,
                     *       "ttl_ms": 60000,
                     *       "claimed_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": "2030-04-30T12:01:30.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Permit"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No semaphore \"fragile-upstream\": create it with PUT /v1/semaphores/{name}."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not the current claim (released, timed out or unknown). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-current-holder",
                     *       "title": "Not the current holder",
                     *       "detail": "Permit timed out; nothing was changed. Acquire again to get a new claim and fencing token.",
                     *       "status": 409,
                     *       "state": "timed_out",
                     *       "released_at": null,
                     *       "timed_out_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["NotCurrentHolder"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    releaseSemaphore: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permit_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e"
                 *     }
                 */
                "application/json": components["schemas"]["SemaphoreRelease"];
            };
        };
        responses: {
            /** @description Released */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No semaphore \"fragile-upstream\": create it with PUT /v1/semaphores/{name}."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not the current claim (released, timed out or unknown). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-current-holder",
                     *       "title": "Not the current holder",
                     *       "detail": "Permit timed out; nothing was changed. Acquire again to get a new claim and fencing token.",
                     *       "status": 409,
                     *       "state": "timed_out",
                     *       "released_at": null,
                     *       "timed_out_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["NotCurrentHolder"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    generateInvoice: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subscription_id": "SUB-1234",
                 *       "kind": "usage"
                 *     }
                 */
                "application/json": components["schemas"]["InvoiceGeneration"];
            };
        };
        responses: {
            /** @description Generated */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "subscription_id": "SUB-1234",
                     *       "kind": "usage",
                     *       "number": 7,
                     *       "work_ms": 0,
                     *       "started_at": "2030-04-30T12:00:00.000Z",
                     *       "finished_at": "2030-04-30T12:00:00.012Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A generation for this subscription is running; see Retry-After. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/lock-unavailable",
                     *       "title": "Lock not available",
                     *       "detail": "An invoice for \"SUB-1234\" is being generated. Retry after 1 s.",
                     *       "status": 409,
                     *       "key": "SUB-1234"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["LockUnavailable"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putInventoryStock: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                item: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": "2030-06-01",
                 *       "to": "2030-06-03",
                 *       "quantity": 10
                 *     }
                 */
                "application/json": components["schemas"]["InventoryStock"];
            };
        };
        responses: {
            /** @description The nights as they are now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "item": "travelodge-mk/double",
                     *       "from": "2030-06-01",
                     *       "to": "2030-06-03",
                     *       "nights": [
                     *         {
                     *           "date": "2030-06-01",
                     *           "capacity": 10,
                     *           "booked": 3,
                     *           "held": 2,
                     *           "available": 5
                     *         },
                     *         {
                     *           "date": "2030-06-02",
                     *           "capacity": 10,
                     *           "booked": 3,
                     *           "held": 2,
                     *           "available": 5
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["InventoryNights"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `stock-below-taken`: some nights already have more booked + held than `quantity` (`nights`). `concurrent-conflict` (with `Retry-After`): bookings changed the same nights while stock was lowered; retry. Nothing changed either way.. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/stock-below-taken",
                     *       "title": "Stock below what is taken",
                     *       "detail": "Capacity 2 is below booked + held on 1 night(s); nothing changed.",
                     *       "status": 409,
                     *       "nights": [
                     *         {
                     *           "date": "2030-06-01",
                     *           "capacity": 2,
                     *           "booked": 3,
                     *           "held": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["InventoryStockBelowTaken"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getInventoryAvailability: {
        parameters: {
            query: {
                /** @example 2030-06-01 */
                from: string;
                /**
                 * @description Exclusive
                 * @example 2030-06-03
                 */
                to: string;
            };
            header?: never;
            path: {
                item: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every night of the window, in order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "item": "travelodge-mk/double",
                     *       "from": "2030-06-01",
                     *       "to": "2030-06-03",
                     *       "nights": [
                     *         {
                     *           "date": "2030-06-01",
                     *           "capacity": 10,
                     *           "booked": 3,
                     *           "held": 2,
                     *           "available": 5
                     *         },
                     *         {
                     *           "date": "2030-06-02",
                     *           "capacity": 10,
                     *           "booked": 3,
                     *           "held": 2,
                     *           "available": 5
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["InventoryNights"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path item: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "item",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                item: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "check_in": "2030-06-01",
                 *       "check_out": "2030-06-03",
                 *       "quantity": 2,
                 *       "holder": "guest-3126",
                 *       "hold_ms": 900000
                 *     }
                 */
                "application/json": components["schemas"]["NewInventoryBooking"];
            };
        };
        responses: {
            /** @description Booked (or held) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "booking_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "item": "travelodge-mk/double",
                     *       "holder": "guest-3126",
                     *       "check_in": "2030-06-01",
                     *       "check_out": "2030-06-03",
                     *       "quantity": 2,
                     *       "status": "held",
                     *       "expires_at": "2030-04-30T12:15:00.000Z",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "confirmed_at": null,
                     *       "cancelled_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["InventoryBooking"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not enough rooms on some nights (listed in `short`; a night without stock has available 0); nothing taken. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/inventory-short",
                     *       "title": "Not enough inventory",
                     *       "detail": "2 room(s) of \"travelodge-mk/double\" are not available on 1 night(s) of [2030-06-01, 2030-06-03); nothing was taken.",
                     *       "status": 409,
                     *       "short": [
                     *         {
                     *           "date": "2030-06-02",
                     *           "available": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["InventoryShort"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    confirmBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                item: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Confirmed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "booking_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "item": "travelodge-mk/double",
                     *       "holder": "guest-3126",
                     *       "check_in": "2030-06-01",
                     *       "check_out": "2030-06-03",
                     *       "quantity": 2,
                     *       "status": "confirmed",
                     *       "expires_at": null,
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "confirmed_at": "2030-04-30T12:05:00.000Z",
                     *       "cancelled_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["InventoryBooking"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No booking \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of \"travelodge-mk/double\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The hold expired, or the booking was cancelled (`booking` shows it). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/hold-expired",
                     *       "title": "Hold expired",
                     *       "detail": "The hold lapsed at 2030-04-30T12:15:00.000Z; its rooms are free again. Book again.",
                     *       "status": 409,
                     *       "booking": {
                     *         "booking_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *         "item": "travelodge-mk/double",
                     *         "holder": "guest-3126",
                     *         "check_in": "2030-06-01",
                     *         "check_out": "2030-06-03",
                     *         "quantity": 2,
                     *         "status": "expired",
                     *         "expires_at": "2030-04-30T12:15:00.000Z",
                     *         "created_at": "2030-04-30T12:00:00.000Z",
                     *         "confirmed_at": null,
                     *         "cancelled_at": null
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["InventoryBookingConflict"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path item: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "item",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getBooking: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                item: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The booking */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "booking_id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "item": "travelodge-mk/double",
                     *       "holder": "guest-3126",
                     *       "check_in": "2030-06-01",
                     *       "check_out": "2030-06-03",
                     *       "quantity": 2,
                     *       "status": "held",
                     *       "expires_at": "2030-04-30T12:15:00.000Z",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "confirmed_at": null,
                     *       "cancelled_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["InventoryBooking"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No booking \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of \"travelodge-mk/double\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path item: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "item",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelBooking: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                item: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No booking \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of \"travelodge-mk/double\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path item: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "item",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWebhookSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                source: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The source */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "source": "billing",
                     *       "scheme": "standard-webhooks",
                     *       "tolerance_s": 300,
                     *       "ordering_key": "/data/subscription_id",
                     *       "hmac": null,
                     *       "replay_window_s": null,
                     *       "previous_secret_expires_at": null,
                     *       "recent_rejections": [
                     *         {
                     *           "at": "2030-04-30T12:00:00.000Z",
                     *           "reason": "timestamp-outside-tolerance",
                     *           "header": "webhook-timestamp",
                     *           "detail": "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s."
                     *         }
                     *       ],
                     *       "forward": {
                     *         "url": "https://api.example.com/hooks/billing",
                     *         "timeout_ms": 10000,
                     *         "retry_schedule_ms": [
                     *           5000,
                     *           300000,
                     *           1800000,
                     *           7200000,
                     *           18000000,
                     *           36000000,
                     *           36000000
                     *         ],
                     *         "ordered": true,
                     *         "previous_secret_expires_at": null,
                     *         "stopped_at": null,
                     *         "stopped_reason": null
                     *       },
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookSource"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No webhook source \"billing\". Register it with PUT /v1/webhooks/sources/billing."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path source: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "source",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putWebhookSource: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                source: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "scheme": "standard-webhooks",
                 *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                 *       "tolerance_s": 300,
                 *       "ordering_key": "/data/subscription_id",
                 *       "forward": {
                 *         "url": "https://api.example.com/hooks/billing",
                 *         "secret": "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                 *         "ordered": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WebhookSourceInput"];
            };
        };
        responses: {
            /** @description Replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "source": "billing",
                     *       "scheme": "standard-webhooks",
                     *       "tolerance_s": 300,
                     *       "ordering_key": "/data/subscription_id",
                     *       "hmac": null,
                     *       "replay_window_s": null,
                     *       "previous_secret_expires_at": null,
                     *       "recent_rejections": [
                     *         {
                     *           "at": "2030-04-30T12:00:00.000Z",
                     *           "reason": "timestamp-outside-tolerance",
                     *           "header": "webhook-timestamp",
                     *           "detail": "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s."
                     *         }
                     *       ],
                     *       "forward": {
                     *         "url": "https://api.example.com/hooks/billing",
                     *         "timeout_ms": 10000,
                     *         "retry_schedule_ms": [
                     *           5000,
                     *           300000,
                     *           1800000,
                     *           7200000,
                     *           18000000,
                     *           36000000,
                     *           36000000
                     *         ],
                     *         "ordered": true,
                     *         "previous_secret_expires_at": null,
                     *         "stopped_at": null,
                     *         "stopped_reason": null
                     *       },
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookSource"];
                };
            };
            /** @description Registered */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "source": "billing",
                     *       "scheme": "standard-webhooks",
                     *       "tolerance_s": 300,
                     *       "ordering_key": "/data/subscription_id",
                     *       "hmac": null,
                     *       "replay_window_s": null,
                     *       "previous_secret_expires_at": null,
                     *       "recent_rejections": [
                     *         {
                     *           "at": "2030-04-30T12:00:00.000Z",
                     *           "reason": "timestamp-outside-tolerance",
                     *           "header": "webhook-timestamp",
                     *           "detail": "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s."
                     *         }
                     *       ],
                     *       "forward": {
                     *         "url": "https://api.example.com/hooks/billing",
                     *         "timeout_ms": 10000,
                     *         "retry_schedule_ms": [
                     *           5000,
                     *           300000,
                     *           1800000,
                     *           7200000,
                     *           18000000,
                     *           36000000,
                     *           36000000
                     *         ],
                     *         "ordered": true,
                     *         "previous_secret_expires_at": null,
                     *         "stopped_at": null,
                     *         "stopped_reason": null
                     *       },
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookSource"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookSources: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sources */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "source": "billing",
                     *           "scheme": "standard-webhooks",
                     *           "tolerance_s": 300,
                     *           "ordering_key": "/data/subscription_id",
                     *           "hmac": null,
                     *           "replay_window_s": null,
                     *           "previous_secret_expires_at": null,
                     *           "recent_rejections": [
                     *             {
                     *               "at": "2030-04-30T12:00:00.000Z",
                     *               "reason": "timestamp-outside-tolerance",
                     *               "header": "webhook-timestamp",
                     *               "detail": "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s."
                     *             }
                     *           ],
                     *           "forward": {
                     *             "url": "https://api.example.com/hooks/billing",
                     *             "timeout_ms": 10000,
                     *             "retry_schedule_ms": [
                     *               5000,
                     *               300000,
                     *               1800000,
                     *               7200000,
                     *               18000000,
                     *               36000000,
                     *               36000000
                     *             ],
                     *             "ordered": true,
                     *             "previous_secret_expires_at": null,
                     *             "stopped_at": null,
                     *             "stopped_reason": null
                     *           },
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "updated_at": "2030-04-30T12:00:00.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookSourceList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    receiveWebhook: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description standard-webhooks: the message id; one event is stored per (source, webhook-id). 1–255 characters.
                 * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
                 */
                "webhook-id"?: string;
                /**
                 * @description standard-webhooks: integer seconds since the Unix epoch; must be within ±`tolerance_s` of the database clock.
                 * @example 1735689600
                 */
                "webhook-timestamp"?: string;
                /**
                 * @description standard-webhooks: space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (several for key rotation).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature"?: string;
                /**
                 * @description stripe: `t=<unix s>,v1=<hex HMAC-SHA256 of t.body>` (one v1 per live secret during a roll). Deduplicated on the body's `id`.
                 * @example t=1735689600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd
                 */
                "Stripe-Signature"?: string;
                /**
                 * @description github: `sha256=<hex HMAC-SHA256 of the body>`.
                 * @example sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17
                 */
                "X-Hub-Signature-256"?: string;
                /**
                 * @description github: the delivery's GUID (a redelivery keeps it); deliveries are deduplicated on it.
                 * @example 72d3162e-cc78-11e3-81ab-4c9367dc0958
                 */
                "X-GitHub-Delivery"?: string;
                /**
                 * @description github: the event type (`ping` is acknowledged and not stored).
                 * @example issues
                 */
                "X-GitHub-Event"?: string;
                /**
                 * @description shopify: base64 HMAC-SHA256 of the body.
                 * @example XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=
                 */
                "X-Shopify-Hmac-Sha256"?: string;
                /**
                 * @description shopify: the webhook's id (retries keep it); deliveries without X-Shopify-Event-Id are deduplicated on it.
                 * @example b54557e4-bdd9-4b37-8a5f-bf7d70bcd043
                 */
                "X-Shopify-Webhook-Id"?: string;
                /**
                 * @description shopify: the event's id (every webhook of one event carries it); deliveries are deduplicated on it.
                 * @example 98880550-7158-44d4-b7cd-2c97c8a091b5
                 */
                "X-Shopify-Event-Id"?: string;
                /**
                 * @description shopify: the topic, stored as the event type.
                 * @example orders/create
                 */
                "X-Shopify-Topic"?: string;
                /**
                 * @description slack: `v0=<hex HMAC-SHA256 of v0:timestamp:body>`. Deduplicated on the body's `event_id`.
                 * @example v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503
                 */
                "X-Slack-Signature"?: string;
                /**
                 * @description slack: integer seconds since the Unix epoch; within ±`tolerance_s` (default 300).
                 * @example 1735689600
                 */
                "X-Slack-Request-Timestamp"?: string;
            };
            path: {
                /** @description The source's name; never `sources` (`/v1/webhooks/sources`, a concrete path, is the source list's) */
                source: string;
            };
            cookie?: never;
        };
        /** @description Any JSON, as the sender signed it: the signature covers these exact bytes (UTF-8), so send them unchanged. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "invoice.paid",
                 *       "data": {
                 *         "subscription_id": "SUB-1234"
                 *       }
                 *     }
                 */
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Stored (or already stored: `Idempotent-Replayed: true`), or a handshake answered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "status": "received"
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookReceived"] | {
                        challenge: string;
                    } | {
                        /** @enum {string} */
                        status: "acknowledged";
                        /** @enum {string} */
                        event_type: "ping";
                        /** @enum {boolean} */
                        stored: false;
                    };
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not verified (a missing or malformed header, a signature that does not match, a timestamp outside the tolerance, or an unknown source: one answer for all). Nothing stored */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/webhook-signature",
                     *       "title": "Webhook not verified",
                     *       "detail": "The delivery was not verified, and nothing was stored. Why is shown to the source's owner (GET /v1/webhooks/sources/{source}: recent_rejections), not to the sender.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    claimWebhookEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                source: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "limit": 10,
                 *       "visibility_ms": 30000
                 *     }
                 */
                "application/json": components["schemas"]["WebhookClaim"];
            };
        };
        responses: {
            /** @description The claimed events (possibly none) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "events": [
                     *         {
                     *           "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *           "webhook_id": "msg_2Lh8fLZ0kC4nE6qY",
                     *           "event_type": "invoice.paid",
                     *           "payload": {
                     *             "type": "invoice.paid",
                     *             "data": {
                     *               "subscription_id": "SUB-1234"
                     *             }
                     *           },
                     *           "ordering_value": "SUB-1234",
                     *           "received_at": "2030-04-30T11:59:58.120Z",
                     *           "claim_expires_at": "2030-04-30T12:00:30.000Z",
                     *           "receipt": "c5d8e2f1-9a3b-4c7d-8e6f-0a1b2c3d4e5f"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        events: components["schemas"]["ClaimedWebhookEvent"][];
                    };
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No webhook source \"billing\". Register it with PUT /v1/webhooks/sources/billing."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ackWebhookEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                source: string;
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "receipt": "c5d8e2f1-9a3b-4c7d-8e6f-0a1b2c3d4e5f"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookAck"];
            };
        };
        responses: {
            /** @description The event, processed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "webhook_id": "msg_2Lh8fLZ0kC4nE6qY",
                     *       "event_type": "invoice.paid",
                     *       "payload": {
                     *         "type": "invoice.paid",
                     *         "data": {
                     *           "subscription_id": "SUB-1234"
                     *         }
                     *       },
                     *       "status": "processed",
                     *       "ordering_value": "SUB-1234",
                     *       "webhook_timestamp": "2030-04-30T11:59:58.000Z",
                     *       "received_at": "2030-04-30T11:59:58.120Z",
                     *       "claim_expires_at": null,
                     *       "claims": 0,
                     *       "processed_at": "2030-04-30T12:00:00.000Z",
                     *       "delivery": {
                     *         "state": "delivered",
                     *         "attempts": 2,
                     *         "in_flight": false,
                     *         "next_attempt_at": null,
                     *         "delivered_at": "2030-04-30T12:00:00.000Z",
                     *         "failed_at": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEvent"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No event \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of source \"billing\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Lost a race; nothing was applied. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/claim-not-current",
                     *       "title": "Claim not current",
                     *       "detail": "Event 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e was not acknowledged: this claim lapsed before the ack. Nothing was changed; claim again to process it.",
                     *       "status": 409,
                     *       "state": "expired",
                     *       "claim_expires_at": "2030-04-30T12:00:30.000Z"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookEvents: {
        parameters: {
            query?: {
                /** @description received (waiting), claimed (live claim) or processed (acked, or delivered); forwarding: pending or failed (the dead letters); omitted = all */
                status?: "received" | "claimed" | "processed" | "pending" | "failed";
                /** @description Page size, 1–1000 (default 100) */
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                source: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *           "webhook_id": "msg_2Lh8fLZ0kC4nE6qY",
                     *           "event_type": "invoice.paid",
                     *           "payload": {
                     *             "type": "invoice.paid",
                     *             "data": {
                     *               "subscription_id": "SUB-1234"
                     *             }
                     *           },
                     *           "status": "processed",
                     *           "ordering_value": "SUB-1234",
                     *           "webhook_timestamp": "2030-04-30T11:59:58.000Z",
                     *           "received_at": "2030-04-30T11:59:58.120Z",
                     *           "claim_expires_at": null,
                     *           "claims": 0,
                     *           "processed_at": "2030-04-30T12:00:00.000Z",
                     *           "delivery": {
                     *             "state": "delivered",
                     *             "attempts": 2,
                     *             "in_flight": false,
                     *             "next_attempt_at": null,
                     *             "delivered_at": "2030-04-30T12:00:00.000Z",
                     *             "failed_at": null
                     *           }
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": {
                        items: components["schemas"]["WebhookEvent"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No webhook source \"billing\". Register it with PUT /v1/webhooks/sources/billing."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path source: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "source",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    redeliverFailedWebhookEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                source: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2030-04-29T00:00:00Z",
                 *       "until": "2030-04-30T00:00:00Z",
                 *       "limit": 1000
                 *     }
                 */
                "application/json": components["schemas"]["WebhookRedeliverFailed"];
            };
        };
        responses: {
            /** @description How many are pending again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "redelivered": 42,
                     *       "more": false
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookRedelivered"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No webhook source \"billing\". Register it with PUT /v1/webhooks/sources/billing."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Lost a race; nothing was applied. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWebhookAttempts: {
        parameters: {
            query?: {
                /** @description Page size, 1–1000 (default 100) */
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                source: string;
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "n": 1,
                     *           "trigger": "received",
                     *           "target": "https://api.example.com/hooks/billing",
                     *           "started_at": "2030-04-30T12:00:00.000Z",
                     *           "finished_at": "2030-04-30T12:00:00.000Z",
                     *           "status": 503,
                     *           "outcome": "failed",
                     *           "latency_ms": 182,
                     *           "response": "upstream unavailable",
                     *           "error": null,
                     *           "retry_after_ms": 30000
                     *         },
                     *         {
                     *           "n": 2,
                     *           "trigger": "schedule",
                     *           "target": "https://api.example.com/hooks/billing",
                     *           "started_at": "2030-04-30T12:00:00.000Z",
                     *           "finished_at": "2030-04-30T12:00:00.000Z",
                     *           "status": 200,
                     *           "outcome": "delivered",
                     *           "latency_ms": 182,
                     *           "response": "{\"ok\":true}",
                     *           "error": null,
                     *           "retry_after_ms": null
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookAttemptList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No event \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of source \"billing\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path source: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "source",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    redeliverWebhookEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                source: string;
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pending again; the attempt starts after this answer */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "webhook_id": "msg_2Lh8fLZ0kC4nE6qY",
                     *       "event_type": "invoice.paid",
                     *       "payload": {
                     *         "type": "invoice.paid",
                     *         "data": {
                     *           "subscription_id": "SUB-1234"
                     *         }
                     *       },
                     *       "status": "received",
                     *       "ordering_value": "SUB-1234",
                     *       "webhook_timestamp": "2030-04-30T11:59:58.000Z",
                     *       "received_at": "2030-04-30T11:59:58.120Z",
                     *       "claim_expires_at": null,
                     *       "claims": 0,
                     *       "processed_at": null,
                     *       "delivery": {
                     *         "state": "pending",
                     *         "attempts": 8,
                     *         "in_flight": false,
                     *         "next_attempt_at": "2030-04-30T12:00:00.000Z",
                     *         "delivered_at": null,
                     *         "failed_at": null
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookEvent"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No event \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" of source \"billing\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Lost a race; nothing was applied. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/conflict",
                     *       "title": "Conflict",
                     *       "detail": "An attempt of event 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e is in flight (until 2030-04-30T12:00:30.000Z); its outcome is recorded first.",
                     *       "status": 409,
                     *       "reason": "in-flight"
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path source: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "source",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRateLimitPolicies: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Policies */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "name": "api",
                     *           "algorithm": "sliding_window",
                     *           "limit": 100,
                     *           "window_ms": 60000,
                     *           "log": false,
                     *           "history_ms": 604800000,
                     *           "timeout_ms": 5000,
                     *           "on_unavailable": "deny",
                     *           "shadow": false,
                     *           "durable": false,
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "updated_at": "2030-04-30T12:00:00.000Z"
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitPolicyList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRateLimitPolicyOverrides: {
        parameters: {
            query?: {
                /** @description Page size, 1–1000 (default 100) */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Periods */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "policy": "api",
                     *           "key": "customer-42",
                     *           "limit": 1000,
                     *           "valid_from": "2030-05-01T00:00:00.000Z",
                     *           "valid_to": "2030-06-01T00:00:00.000Z",
                     *           "shadow": false
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitOverrideList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getRateLimitPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "api",
                     *       "algorithm": "sliding_window",
                     *       "limit": 100,
                     *       "window_ms": 60000,
                     *       "log": false,
                     *       "history_ms": 604800000,
                     *       "timeout_ms": 5000,
                     *       "on_unavailable": "deny",
                     *       "shadow": false,
                     *       "durable": false,
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitPolicy"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putRateLimitPolicy: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "algorithm": "sliding_window",
                 *       "limit": 100,
                 *       "window_ms": 60000
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitPolicyInput"];
            };
        };
        responses: {
            /** @description Replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "api",
                     *       "algorithm": "sliding_window",
                     *       "limit": 100,
                     *       "window_ms": 60000,
                     *       "log": false,
                     *       "history_ms": 604800000,
                     *       "timeout_ms": 5000,
                     *       "on_unavailable": "deny",
                     *       "shadow": false,
                     *       "durable": false,
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitPolicy"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "api",
                     *       "algorithm": "sliding_window",
                     *       "limit": 100,
                     *       "window_ms": 60000,
                     *       "log": false,
                     *       "history_ms": 604800000,
                     *       "timeout_ms": 5000,
                     *       "on_unavailable": "deny",
                     *       "shadow": false,
                     *       "durable": false,
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitPolicy"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRateLimitPolicy: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRateLimitOverrides: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                /** @description The key, or with `*` a pattern of keys (`tenant-42:*`) */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Periods */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "policy": "api",
                     *           "key": "customer-42",
                     *           "limit": 1000,
                     *           "valid_from": "2030-05-01T00:00:00.000Z",
                     *           "valid_to": "2030-06-01T00:00:00.000Z",
                     *           "shadow": false
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        items: components["schemas"]["RateLimitOverride"][];
                    };
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putRateLimitOverride: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
                /** @description The key, or with `*` a pattern of keys (`tenant-42:*`) */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "limit": 1000,
                 *       "valid_from": "2030-05-01T00:00:00Z",
                 *       "valid_to": "2030-06-01T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitOverrideInput"];
            };
        };
        responses: {
            /** @description The limit of this exact period was changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "limit": 1000,
                     *       "valid_from": "2030-05-01T00:00:00.000Z",
                     *       "valid_to": "2030-06-01T00:00:00.000Z",
                     *       "shadow": false
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitOverride"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "limit": 1000,
                     *       "valid_from": "2030-05-01T00:00:00.000Z",
                     *       "valid_to": "2030-06-01T00:00:00.000Z",
                     *       "shadow": false
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitOverride"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Overlaps another period of this key, or a pattern that could tie with this one; nothing was written. Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/override-conflict",
                     *       "title": "Override period overlaps",
                     *       "detail": "\"customer-42\" already has a \"api\" override during part of that period.",
                     *       "status": 409,
                     *       "conflicts": [
                     *         {
                     *           "policy": "api",
                     *           "key": "customer-42",
                     *           "limit": 1000,
                     *           "valid_from": "2030-05-15T00:00:00.000Z",
                     *           "valid_to": null,
                     *           "shadow": false
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["RateLimitOverrideConflict"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRateLimitOverride: {
        parameters: {
            query?: {
                /**
                 * @description Delete only the period starting here; omitted = every period of the key
                 * @example 2030-05-01T00:00:00Z
                 */
                valid_from?: string;
            };
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
                /** @description The key, or with `*` a pattern of keys (`tenant-42:*`) */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No matching override of \"customer-42\" in \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    checkRateLimit: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "policy": "api",
                 *       "key": "customer-42",
                 *       "cost": 1,
                 *       "ip": "192.0.2.7"
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitCheck"];
            };
        };
        responses: {
            /** @description Allowed (or not enforced: fail open; or let through by an allow list entry, uncounted) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAllowListed"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A deny list entry matches the key, the `ip` or the `country`: nothing was counted. 403 and not 429: the entry does not end with a window, so a retry never helps */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/denied-by-list",
                     *       "title": "Denied by a deny list",
                     *       "detail": "\"customer-42\" is refused: the address \"192.0.2.0/24\" is on the policy \"api\" deny list: card testing. Nothing was counted; a retry is refused alike.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "allowed": false,
                     *       "entry": {
                     *         "list": "deny",
                     *         "policy": "api",
                     *         "kind": "ip",
                     *         "value": "192.0.2.0/24",
                     *         "reason": "card testing"
                     *       }
                     *     }
                     */
                    "application/problem+json": components["schemas"]["RateLimitDeniedByList"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied; nothing consumed. `policy`: the result body; `policies`: a quota-exceeded problem */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 12500,
                     *       "retry_after_ms": 12500,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"];
                    /**
                     * @example {
                     *       "type": "/problems/quota-exceeded",
                     *       "title": "Quota exceeded",
                     *       "status": 429,
                     *       "detail": "\"customer-42\" is over the limit of \"daily\"; nothing was consumed.",
                     *       "violated-policies": [
                     *         "daily"
                     *       ],
                     *       "allowed": false,
                     *       "policy": "daily",
                     *       "key": "customer-42",
                     *       "limit": 10000,
                     *       "remaining": 0,
                     *       "reset_ms": 3600000,
                     *       "retry_after_ms": 3600000,
                     *       "reason": "limit",
                     *       "violated_policies": [
                     *         "daily"
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["RateLimitQuotaExceeded"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    refundRateLimit: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "policy": "api",
                 *       "key": "customer-42",
                 *       "cost": 1
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitRefund"];
            };
        };
        responses: {
            /** @description The state after the refund */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "limit": 100,
                     *       "remaining": 100,
                     *       "reset_ms": 45000,
                     *       "refunded": 1
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitRefundResult"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getRateLimitUsage: {
        parameters: {
            query: {
                /** @example api */
                policy: string;
                /** @example customer-42 */
                key: string;
                /**
                 * @description History from (inclusive); give both `from` and `to`, or neither
                 * @example 2030-04-30T11:00:00Z
                 */
                from?: string;
                /**
                 * @description History to (exclusive); give both `from` and `to`, or neither
                 * @example 2030-04-30T12:00:00Z
                 */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "window_start": "2030-04-30T12:00:00.000Z",
                     *       "window_end": "2030-04-30T12:01:00.000Z",
                     *       "admitted": 87,
                     *       "attempted": 112,
                     *       "rejected": 25,
                     *       "would_refuse": 0,
                     *       "consumed": 87,
                     *       "policy": "api",
                     *       "key": "customer-42",
                     *       "algorithm": "sliding_window",
                     *       "limit": 100,
                     *       "window_ms": 60000,
                     *       "shadow": false,
                     *       "windows": [
                     *         {
                     *           "window_start": "2030-04-30T11:58:00.000Z",
                     *           "window_end": "2030-04-30T11:59:00.000Z",
                     *           "admitted": 100,
                     *           "attempted": 140,
                     *           "rejected": 40,
                     *           "would_refuse": 0,
                     *           "consumed": 100
                     *         },
                     *         {
                     *           "window_start": "2030-04-30T11:59:00.000Z",
                     *           "window_end": "2030-04-30T12:00:00.000Z",
                     *           "admitted": 64,
                     *           "attempted": 64,
                     *           "rejected": 0,
                     *           "would_refuse": 0,
                     *           "consumed": 64
                     *         }
                     *       ],
                     *       "deny_cached_until": null
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitUsage"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    resetRateLimitUsage: {
        parameters: {
            query: {
                /**
                 * @description The policy; omitted: every policy the caller may touch
                 * @example api
                 */
                policy?: string;
                /** @example customer-42 */
                key: string;
            };
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Reset */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "key": "customer-42",
                     *       "policies": [
                     *         "api"
                     *       ],
                     *       "at": "2030-04-30T12:00:30.120Z"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitReset"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRateLimitListEntries: {
        parameters: {
            query?: {
                /** @description Page size, 1–1000 (default 100) */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /** @description Only this policy's entries */
                policy?: string;
            };
            header?: never;
            path: {
                /** @example deny */
                list: "deny" | "allow";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "list": "deny",
                     *           "policy": "api",
                     *           "kind": "ip",
                     *           "value": "192.0.2.0/24",
                     *           "reason": "card testing",
                     *           "expires_at": "2030-05-01T00:00:00Z",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "updated_at": "2030-04-30T12:00:00.000Z",
                     *           "expired": false
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitListPage"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path list: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "list",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putRateLimitListEntry: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example deny */
                list: "deny" | "allow";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "ip",
                 *       "value": "192.0.2.0/24",
                 *       "policy": "api",
                 *       "reason": "card testing",
                 *       "expires_at": "2030-05-01T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["RateLimitListEntryInput"];
            };
        };
        responses: {
            /** @description Replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "list": "deny",
                     *       "policy": "api",
                     *       "kind": "ip",
                     *       "value": "192.0.2.0/24",
                     *       "reason": "card testing",
                     *       "expires_at": "2030-05-01T00:00:00Z",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z",
                     *       "expired": false
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitListEntry"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "list": "deny",
                     *       "policy": "api",
                     *       "kind": "ip",
                     *       "value": "192.0.2.0/24",
                     *       "reason": "card testing",
                     *       "expires_at": "2030-05-01T00:00:00Z",
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "updated_at": "2030-04-30T12:00:00.000Z",
                     *       "expired": false
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitListEntry"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteRateLimitListEntry: {
        parameters: {
            query: {
                /**
                 * @description `key`: the limited key, exactly; `prefix`: every key starting with `value`; `ip`: an address or network (CIDR, v4 or v6) the client's address lies in; `country`: an ISO 3166-1 alpha-2 code
                 * @example ip
                 */
                kind: "key" | "prefix" | "ip" | "country";
                /** @example 192.0.2.0/24 */
                value: string;
                /**
                 * @description The entry's policy; omitted: the global entry
                 * @example api
                 */
                policy?: string;
            };
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example deny */
                list: "deny" | "allow";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No deny list entry ip \"192.0.2.0/24\" for \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path list: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "list",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listRateLimitPolicyKeys: {
        parameters: {
            query?: {
                /** @description Page size, 1–1000 (default 100) */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /**
                 * @description `current`: the current window; `1h`: every window that overlaps the last hour
                 * @example 1h
                 */
                window?: "current" | "1h";
                /**
                 * @description `denied`: most rejected calls first; `used`: most units consumed first
                 * @example denied
                 */
                order?: "denied" | "used";
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "policy": "api",
                     *       "window": "1h",
                     *       "order": "denied",
                     *       "from": "2030-04-30T11:00:00.000Z",
                     *       "window_end": "2030-04-30T12:01:00.000Z",
                     *       "items": [
                     *         {
                     *           "key": "customer-42",
                     *           "admitted": 100,
                     *           "attempted": 5240,
                     *           "rejected": 5140,
                     *           "consumed": 100
                     *         },
                     *         {
                     *           "key": "customer-7",
                     *           "admitted": 100,
                     *           "attempted": 180,
                     *           "rejected": 80,
                     *           "consumed": 100
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitKeyList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getRateLimitPolicyDecisions: {
        parameters: {
            query?: {
                /**
                 * @description How many minutes back, 1–1440 (default 60)
                 * @example 60
                 */
                minutes?: number;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Per minute */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "policy": "api",
                     *       "items": [
                     *         {
                     *           "minute": "2030-04-30T11:58:00Z",
                     *           "allowed": 4100,
                     *           "denied": 12,
                     *           "would_refuse": 0,
                     *           "unenforced": 0,
                     *           "unavailable": 0
                     *         },
                     *         {
                     *           "minute": "2030-04-30T11:59:00Z",
                     *           "allowed": 4310,
                     *           "denied": 5128,
                     *           "would_refuse": 0,
                     *           "unenforced": 0,
                     *           "unavailable": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitPolicyDecisions"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path name: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "name",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    authorizeRequest: {
        parameters: {
            query: {
                /**
                 * @description 1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check
                 * @example [
                 *       "api"
                 *     ]
                 */
                policy: string[];
                /**
                 * @description Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)
                 * @example [
                 *       "ip"
                 *     ]
                 */
                key: string[];
                /**
                 * @description Units (default 1)
                 * @example 1
                 */
                cost?: number;
                /**
                 * @description 429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)
                 * @example 429
                 */
                deny_status?: 429 | 403 | 401;
                /** @description A request with none of the key sources: refused with `deny_status` (default) or let through uncounted */
                on_missing?: "deny" | "allow";
                /** @description With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry) */
                trusted_hops?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAuthzNoKey"];
                };
            };
            /** @description Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong */
            401: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "status": 401,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it) */
            403: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "status": 429,
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    authorizeRequestPut: {
        parameters: {
            query: {
                /**
                 * @description 1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check
                 * @example [
                 *       "api"
                 *     ]
                 */
                policy: string[];
                /**
                 * @description Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)
                 * @example [
                 *       "ip"
                 *     ]
                 */
                key: string[];
                /**
                 * @description Units (default 1)
                 * @example 1
                 */
                cost?: number;
                /**
                 * @description 429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)
                 * @example 429
                 */
                deny_status?: 429 | 403 | 401;
                /** @description A request with none of the key sources: refused with `deny_status` (default) or let through uncounted */
                on_missing?: "deny" | "allow";
                /** @description With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry) */
                trusted_hops?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAuthzNoKey"];
                };
            };
            /** @description Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong */
            401: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "status": 401,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it) */
            403: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "status": 429,
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    authorizeRequestPost: {
        parameters: {
            query: {
                /**
                 * @description 1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check
                 * @example [
                 *       "api"
                 *     ]
                 */
                policy: string[];
                /**
                 * @description Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)
                 * @example [
                 *       "ip"
                 *     ]
                 */
                key: string[];
                /**
                 * @description Units (default 1)
                 * @example 1
                 */
                cost?: number;
                /**
                 * @description 429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)
                 * @example 429
                 */
                deny_status?: 429 | 403 | 401;
                /** @description A request with none of the key sources: refused with `deny_status` (default) or let through uncounted */
                on_missing?: "deny" | "allow";
                /** @description With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry) */
                trusted_hops?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAuthzNoKey"];
                };
            };
            /** @description Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong */
            401: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "status": 401,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it) */
            403: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "status": 429,
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    authorizeRequestDelete: {
        parameters: {
            query: {
                /**
                 * @description 1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check
                 * @example [
                 *       "api"
                 *     ]
                 */
                policy: string[];
                /**
                 * @description Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)
                 * @example [
                 *       "ip"
                 *     ]
                 */
                key: string[];
                /**
                 * @description Units (default 1)
                 * @example 1
                 */
                cost?: number;
                /**
                 * @description 429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)
                 * @example 429
                 */
                deny_status?: 429 | 403 | 401;
                /** @description A request with none of the key sources: refused with `deny_status` (default) or let through uncounted */
                on_missing?: "deny" | "allow";
                /** @description With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry) */
                trusted_hops?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAuthzNoKey"];
                };
            };
            /** @description Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong */
            401: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "status": 401,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it) */
            403: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "status": 429,
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    authorizeRequestPatch: {
        parameters: {
            query: {
                /**
                 * @description 1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check
                 * @example [
                 *       "api"
                 *     ]
                 */
                policy: string[];
                /**
                 * @description Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)
                 * @example [
                 *       "ip"
                 *     ]
                 */
                key: string[];
                /**
                 * @description Units (default 1)
                 * @example 1
                 */
                cost?: number;
                /**
                 * @description 429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)
                 * @example 429
                 */
                deny_status?: 429 | 403 | 401;
                /** @description A request with none of the key sources: refused with `deny_status` (default) or let through uncounted */
                on_missing?: "deny" | "allow";
                /** @description With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry) */
                trusted_hops?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`) */
            200: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description `false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered */
                    "Admit-RateLimit-Enforced"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "allowed": true,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 99,
                     *       "reset_ms": 60000,
                     *       "reason": "limit"
                     *     }
                     */
                    "application/json": components["schemas"]["RateLimitResult"] | components["schemas"]["RateLimitUnenforced"] | components["schemas"]["RateLimitAuthzNoKey"];
                };
            };
            /** @description Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong */
            401: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "status": 401,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it) */
            403: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403,
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No rate-limit policy named \"api\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query policy: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "policy",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed */
            429: {
                headers: {
                    /** @description draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400` */
                    "RateLimit-Policy"?: string;
                    /** @description A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000` */
                    RateLimit?: string;
                    /** @description `hit` when this isolate's deny cache answered without Postgres, else `miss` */
                    "Admit-Cache"?: string;
                    /** @description Seconds (when waiting can help) */
                    "Retry-After"?: string;
                    /** @description On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it */
                    "Admit-Authz-Refused"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/rate-limited",
                     *       "title": "Too many requests",
                     *       "status": 429,
                     *       "detail": "\"203.0.113.9\" is over the limit of \"api\"; nothing was consumed.",
                     *       "allowed": false,
                     *       "policy": "api",
                     *       "key": "203.0.113.9",
                     *       "limit": 100,
                     *       "remaining": 0,
                     *       "reset_ms": 60000,
                     *       "reason": "limit",
                     *       "retry_after_ms": 42000
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *           "name": "gateway-eu",
                     *           "scopes": [
                     *             "ratelimits:check"
                     *           ],
                     *           "names": [
                     *             "gw-*"
                     *           ],
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": null,
                     *           "revoked_at": null,
                     *           "last_used_at": "2030-04-30T12:00:30.000Z",
                     *           "made_by": null,
                     *           "secrets": [
                     *             {
                     *               "start": "admit_Q3vX9k",
                     *               "created_at": "2030-04-30T12:00:00.000Z",
                     *               "expires_at": null
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "gateway-eu",
                 *       "scopes": [
                 *         "ratelimits:check"
                 *       ],
                 *       "names": [
                 *         "gw-*"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ApiKeyInput"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "name": "gateway-eu",
                     *       "scopes": [
                     *         "ratelimits:check"
                     *       ],
                     *       "names": [
                     *         "gw-*"
                     *       ],
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": null,
                     *       "revoked_at": null,
                     *       "last_used_at": null,
                     *       "made_by": null,
                     *       "secrets": [
                     *         {
                     *           "start": "admit_Q3vX9k",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": null
                     *         }
                     *       ],
                     *       "secret": "admit_Q3vX9kLw0b2mJr8TfN4eYpZs6HcVgUd1AxKqWn7oRiE"
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "name": "gateway-eu",
                     *       "scopes": [
                     *         "ratelimits:check"
                     *       ],
                     *       "names": [
                     *         "gw-*"
                     *       ],
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": null,
                     *       "revoked_at": null,
                     *       "last_used_at": "2030-04-30T12:00:30.000Z",
                     *       "made_by": null,
                     *       "secrets": [
                     *         {
                     *           "start": "admit_Q3vX9k",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No key \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path id: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "id",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (or already revoked) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "name": "gateway-eu",
                     *       "scopes": [
                     *         "ratelimits:check"
                     *       ],
                     *       "names": [
                     *         "gw-*"
                     *       ],
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": null,
                     *       "revoked_at": "2030-04-30T12:00:30.000Z",
                     *       "last_used_at": "2030-04-30T12:00:30.000Z",
                     *       "made_by": null,
                     *       "secrets": [
                     *         {
                     *           "start": "admit_Q3vX9k",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": null
                     *         }
                     *       ],
                     *       "also_revoked": []
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyRevoked"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No key \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/idempotency-key-in-use",
                     *       "title": "Request in progress",
                     *       "detail": "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "path id: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "path",
                     *           "path": "id",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rotateKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @example 0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "overlap_ms": 3600000
                 *     }
                 */
                "application/json": components["schemas"]["ApiKeyRotation"];
            };
        };
        responses: {
            /** @description Rotated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *       "name": "gateway-eu",
                     *       "scopes": [
                     *         "ratelimits:check"
                     *       ],
                     *       "names": [
                     *         "gw-*"
                     *       ],
                     *       "created_at": "2030-04-30T12:00:00.000Z",
                     *       "expires_at": null,
                     *       "revoked_at": null,
                     *       "last_used_at": "2030-04-30T12:00:30.000Z",
                     *       "made_by": null,
                     *       "secrets": [
                     *         {
                     *           "start": "admit_Q3vX9k",
                     *           "created_at": "2030-04-30T12:00:00.000Z",
                     *           "expires_at": "2030-04-30T13:00:30.000Z"
                     *         },
                     *         {
                     *           "start": "admit_7PzLm2",
                     *           "created_at": "2030-04-30T12:00:30.000Z",
                     *           "expires_at": null
                     *         }
                     *       ],
                     *       "secret": "admit_7PzLm2Yh5cRt9QwXe3NbVa8Ks1DfGj4UoI6lMpZyC0T",
                     *       "old_secrets_expire_at": "2030-04-30T13:00:30.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyRotated"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/bad-request",
                     *       "title": "Bad request",
                     *       "detail": "The body is not valid JSON.",
                     *       "status": 400
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/not-found",
                     *       "title": "Not found",
                     *       "status": 404,
                     *       "detail": "No key \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\"."
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key is revoked or expired (`conflict`). Or: Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/conflict",
                     *       "title": "Conflict",
                     *       "detail": "Key \"0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e\" is revoked or expired: create a new key.",
                     *       "status": 409
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"] | components["schemas"]["IdempotencyKeyInUse"];
                };
            };
            /** @description Body over 64 KiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/payload-too-large",
                     *       "title": "Payload too large",
                     *       "detail": "The body is larger than 65536 bytes.",
                     *       "status": 413
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unsupported-media-type",
                     *       "title": "Unsupported media type",
                     *       "detail": "Send the body as application/json (got \"text/plain\").",
                     *       "status": 415
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "body holder: Required.",
                     *       "errors": [
                     *         {
                     *           "in": "body",
                     *           "path": "holder",
                     *           "message": "Required"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/outcome-unknown",
                     *       "title": "Outcome unknown",
                     *       "detail": "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome.",
                     *       "status": 504
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1–1000 (default 100)
                 * @example 100
                 */
                limit?: number;
                /** @description `next_cursor` of the previous page */
                cursor?: string;
                /**
                 * @description Only changes of this name
                 * @example api
                 */
                target?: string;
                /** @description Only changes by this key id, or `root` (API_TOKEN), or `binding` (the Service Binding, RPC) */
                key?: string;
                /** @description Inclusive */
                from?: string;
                /** @description Exclusive */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": 1207,
                     *           "at": "2030-04-30T12:00:00.000Z",
                     *           "key": {
                     *             "id": "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e",
                     *             "name": "ops"
                     *           },
                     *           "action": "ratelimits.policy.put",
                     *           "target": "api",
                     *           "change": {
                     *             "algorithm": "sliding_window",
                     *             "limit": 100,
                     *             "window_ms": 60000
                     *           }
                     *         }
                     *       ],
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["AuditList"];
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/forbidden",
                     *       "title": "Forbidden",
                     *       "detail": "This key lacks the scope ratelimits:admin.",
                     *       "scope": "ratelimits:admin",
                     *       "status": 403
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed (`errors` lists each field) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation",
                     *       "title": "Validation failed",
                     *       "status": 422,
                     *       "detail": "query limit: Invalid input.",
                     *       "errors": [
                     *         {
                     *           "in": "query",
                     *           "path": "limit",
                     *           "message": "Invalid input"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["ValidationProblem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The exposition */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP admit_ratelimit_decisions_total Rate-limit decisions by policy and outcome …
                     *     # TYPE admit_ratelimit_decisions_total counter
                     *     admit_ratelimit_decisions_total{outcome="allowed",policy="api"} 50
                     *     admit_ratelimit_decisions_total{outcome="denied",policy="api"} 450
                     */
                    "text/plain": string;
                };
            };
            /** @description Missing or invalid bearer token (or a key that is unknown, revoked or expired) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/unauthorized",
                     *       "title": "Unauthorized",
                     *       "detail": "Send `Authorization: Bearer <API_TOKEN or key>`.",
                     *       "status": 401
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable or lock wait timed out; nothing was applied. See Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/database-unavailable",
                     *       "title": "Database unavailable",
                     *       "detail": "The database could not be reached; nothing was applied. Retry after Retry-After seconds.",
                     *       "status": 503
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
