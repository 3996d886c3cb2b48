// The examples themselves, by operationId (functions/http/examples.ts applies them to the document): a
// request body for every operation that takes one, a body for every success response, and the
// route-specific members of its problem responses. A new operation adds its entry here
// (test/openapi.examples.test.ts fails until it does).
import type { Json, OperationExamples } from "./examples";

const T0 = "2030-05-01T09:00:00Z";
const T1 = "2030-05-01T10:00:00Z";
export const NOW = "2030-04-30T12:00:00.000Z";
export const LATER = "2030-04-30T12:00:30.000Z";
// The ids, names and keys the route parameters show as their examples, so one story runs through a page.
export const ID = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
const ID2 = "7a1e5c3b-2f4d-4b8a-8c9e-6d0f1a2b3c4d";
const RECEIPT = "c5d8e2f1-9a3b-4c7d-8e6f-0a1b2c3d4e5f";

const reservation = {
  id: ID,
  resource: "223/345",
  holder: "alice",
  start: T0,
  end: T1,
  metadata: { purpose: "weekly planning" },
  status: "active",
  created_at: NOW,
  cancelled_at: null,
};
const lease = { lease_id: ID, key: "nightly-report", holder: "worker-7", fencing_token: 42, ttl_ms: 30000, claimed_at: NOW, expires_at: LATER };
const semaphore = {
  name: "fragile-upstream",
  permits: 4,
  default_ttl_ms: 60000,
  in_use: 1,
  available: 3,
  holders: [{ slot: 0, holder: "worker-7", fencing_token: 12, claimed_at: NOW, expires_at: "2030-04-30T12:01:00.000Z" }],
  more_holders: 0,
  created_at: "2030-04-01T08:00:00.000Z",
  updated_at: NOW,
};
const emptySemaphore = { ...semaphore, in_use: 0, available: 4, holders: [], created_at: NOW };
const permit = {
  permit_id: ID,
  semaphore: "fragile-upstream",
  slot: 0,
  holder: "worker-7",
  fencing_token: 12,
  ttl_ms: 60000,
  claimed_at: NOW,
  expires_at: "2030-04-30T12:01:00.000Z",
};
const nights = (capacity: number, booked: number, held: number) => ({
  item: "travelodge-mk/double",
  from: "2030-06-01",
  to: "2030-06-03",
  nights: ["2030-06-01", "2030-06-02"].map((date) => ({ date, capacity, booked, held, available: capacity - booked - held })),
});
const booking = {
  booking_id: ID,
  item: "travelodge-mk/double",
  holder: "guest-3126",
  check_in: "2030-06-01",
  check_out: "2030-06-03",
  quantity: 2,
  status: "held",
  expires_at: "2030-04-30T12:15:00.000Z",
  created_at: NOW,
  confirmed_at: null,
  cancelled_at: null,
};
const source = {
  source: "billing",
  scheme: "standard-webhooks",
  tolerance_s: 300,
  ordering_key: "/data/subscription_id",
  hmac: null,
  replay_window_s: null,
  previous_secret_expires_at: null,
  recent_rejections: [
    {
      at: NOW,
      reason: "timestamp-outside-tolerance",
      header: "webhook-timestamp",
      detail: "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s.",
    },
  ],
  created_at: NOW,
  updated_at: NOW,
};
const event = {
  id: ID,
  webhook_id: "msg_2Lh8fLZ0kC4nE6qY",
  event_type: "invoice.paid",
  payload: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } },
  status: "processed",
  ordering_value: "SUB-1234",
  webhook_timestamp: "2030-04-30T11:59:58.000Z",
  received_at: "2030-04-30T11:59:58.120Z",
  claim_expires_at: null,
  claims: 1,
  processed_at: NOW,
};
const policy = {
  name: "api",
  algorithm: "sliding_window",
  limit: 100,
  window_ms: 60000,
  log: false,
  history_ms: 604800000,
  timeout_ms: 5000,
  on_unavailable: "deny",
  created_at: NOW,
  updated_at: NOW,
};
const override = { policy: "api", key: "customer-42", limit: 1000, valid_from: "2030-05-01T00:00:00.000Z", valid_to: "2030-06-01T00:00:00.000Z" };
const denied = { allowed: false, policy: "api", key: "customer-42", limit: 100, remaining: 0, reset_ms: 12500, retry_after_ms: 12500, reason: "limit" };

export const EXAMPLES: Record<string, OperationExamples> = {
  getHealth: {
    responses: { 200: { ok: true } },
    problems: {
      503: {
        type: "/problems/database-unavailable",
        title: "Database unavailable",
        detail: "The database did not answer `select 1` within 4000 ms; retry after Retry-After seconds.",
      },
    },
  },
  createReservation: {
    request: { resource: "223/345", holder: "alice", start: T0, end: T1, metadata: { purpose: "weekly planning" } },
    responses: { 201: reservation },
    problems: {
      409: {
        type: "/problems/reservation-conflict",
        title: "Reservation overlaps",
        detail: '"223/345" is already reserved during part of [2030-05-01T09:00:00Z, 2030-05-01T10:00:00Z).',
        conflicts: [{ id: ID2, holder: "bob", start: "2030-05-01T09:30:00Z", end: "2030-05-01T11:00:00Z" }],
      },
    },
  },
  listReservations: {
    params: { from: "2030-05-01T00:00:00Z", to: "2030-05-02T00:00:00Z", include_cancelled: "false" },
    responses: { 200: { items: [reservation], next_cursor: null } },
  },
  getReservation: { responses: { 200: reservation }, problems: { 404: { detail: `No reservation ${ID}.` } } },
  cancelReservation: { responses: {}, problems: { 404: { detail: `No reservation ${ID}.` } } },
  getResourceAvailability: {
    params: { from: "2030-05-01T08:00:00Z", to: "2030-05-01T12:00:00Z" },
    responses: {
      200: {
        resource: "223/345",
        from: "2030-05-01T08:00:00Z",
        to: "2030-05-01T12:00:00Z",
        free: [
          { start: "2030-05-01T08:00:00Z", end: T0 },
          { start: T1, end: "2030-05-01T12:00:00Z" },
        ],
        busy: [{ start: T0, end: T1 }],
      },
    },
  },
  acquireLock: {
    request: { holder: "worker-7", ttl_ms: 30000 },
    responses: { 201: lease },
    problems: {
      409: {
        type: "/problems/lock-held",
        title: "Lock held",
        detail: `"nightly-report" is held by "worker-3" until ${LATER}.`,
        key: "nightly-report",
        holder: "worker-3",
        expires_at: LATER,
      },
    },
  },
  renewLock: {
    request: { lease_id: ID, ttl_ms: 30000 },
    responses: { 200: { ...lease, expires_at: "2030-04-30T12:00:50.000Z" } },
    problems: { 409: notCurrentHolder("Lease") },
  },
  releaseLock: { request: { lease_id: ID }, responses: {}, problems: { 409: notCurrentHolder("Lease") } },
  listLocks: {
    params: { prefix: "nightly-", limit: 100 },
    responses: {
      200: { items: [{ key: "nightly-report", held: true, holder: "worker-7", fencing_token: 42, claimed_at: NOW, expires_at: LATER }], next_cursor: null },
    },
  },
  getLock: { responses: { 200: { key: "nightly-report", held: true, holder: "worker-7", fencing_token: 42, claimed_at: NOW, expires_at: LATER } } },
  putSemaphore: { request: { permits: 4, default_ttl_ms: 60000 }, responses: { 200: semaphore, 201: emptySemaphore } },
  listSemaphores: {
    params: { limit: 100, holders: 1 },
    responses: {
      200: {
        items: [
          { ...semaphore, in_use: 3, available: 1, more_holders: 2 },
          { ...emptySemaphore, name: "search-backend" },
        ],
        next_cursor: null,
      },
    },
  },
  getSemaphore: { responses: { 200: semaphore }, problems: { 404: noSemaphore() } },
  acquireSemaphore: {
    request: { holder: "worker-7", ttl_ms: 60000 },
    responses: { 201: permit },
    problems: {
      404: noSemaphore(),
      429: {
        type: "/problems/semaphore-full",
        title: "No permit free",
        detail: `All 4 permits of "fragile-upstream" are in use; the earliest expires at ${LATER}.`,
        permits: 4,
        in_use: 4,
        earliest_expires_at: LATER,
      },
    },
  },
  renewSemaphore: {
    request: { permit_id: ID, ttl_ms: 60000 },
    responses: { 200: { ...permit, expires_at: "2030-04-30T12:01:30.000Z" } },
    problems: { 404: noSemaphore(), 409: notCurrentHolder("Permit") },
  },
  releaseSemaphore: { request: { permit_id: ID }, responses: {}, problems: { 404: noSemaphore(), 409: notCurrentHolder("Permit") } },
  generateInvoice: {
    request: { subscription_id: "SUB-1234", kind: "usage" },
    responses: { 201: { id: ID, subscription_id: "SUB-1234", kind: "usage", number: 7, work_ms: 0, started_at: NOW, finished_at: "2030-04-30T12:00:00.012Z" } },
    problems: {
      409: {
        type: "/problems/lock-unavailable",
        title: "Lock not available",
        detail: 'An invoice for "SUB-1234" is being generated. Retry after 1 s.',
        key: "SUB-1234",
      },
    },
  },
  putInventoryStock: {
    request: { from: "2030-06-01", to: "2030-06-03", quantity: 10 },
    responses: { 200: nights(10, 3, 2) },
    problems: {
      409: {
        type: "/problems/stock-below-taken",
        title: "Stock below what is taken",
        detail: "Capacity 2 is below booked + held on 1 night(s); nothing changed.",
        nights: [{ date: "2030-06-01", capacity: 2, booked: 3, held: 0 }],
      },
    },
  },
  getInventoryAvailability: { params: { from: "2030-06-01", to: "2030-06-03" }, responses: { 200: nights(10, 3, 2) } },
  createBooking: {
    request: { check_in: "2030-06-01", check_out: "2030-06-03", quantity: 2, holder: "guest-3126", hold_ms: 900000 },
    responses: { 201: booking },
    problems: {
      409: {
        type: "/problems/inventory-short",
        title: "Not enough inventory",
        detail: '2 room(s) of "travelodge-mk/double" are not available on 1 night(s) of [2030-06-01, 2030-06-03); nothing was taken.',
        short: [{ date: "2030-06-02", available: 1 }],
      },
    },
  },
  confirmBooking: {
    responses: { 200: { ...booking, status: "confirmed", expires_at: null, confirmed_at: "2030-04-30T12:05:00.000Z" } },
    problems: {
      404: { detail: `No booking "${ID}" of "travelodge-mk/double".` },
      409: {
        type: "/problems/hold-expired",
        title: "Hold expired",
        detail: "The hold lapsed at 2030-04-30T12:15:00.000Z; its rooms are free again. Book again.",
        booking: { ...booking, status: "expired" },
      },
    },
  },
  getBooking: { responses: { 200: booking }, problems: { 404: { detail: `No booking "${ID}" of "travelodge-mk/double".` } } },
  cancelBooking: { responses: {}, problems: { 404: { detail: `No booking "${ID}" of "travelodge-mk/double".` } } },
  putWebhookSource: {
    request: { scheme: "standard-webhooks", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", tolerance_s: 300, ordering_key: "/data/subscription_id" },
    responses: { 200: source, 201: source },
  },
  listWebhookSources: { params: { limit: 100 }, responses: { 200: { items: [source], next_cursor: null } } },
  getWebhookSource: { responses: { 200: source }, problems: { 404: noSource() } },
  receiveWebhook: {
    request: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } },
    responses: { 200: { id: ID, status: "received" } },
    problems: {
      401: {
        type: "/problems/webhook-signature",
        title: "Webhook not verified",
        detail:
          "The delivery was not verified, and nothing was stored. Why is shown to the source's owner (GET /v1/webhooks/sources/{source}: recent_rejections), not to the sender.",
      },
    },
  },
  claimWebhookEvents: {
    request: { limit: 10, visibility_ms: 30000 },
    responses: {
      200: {
        events: [
          {
            id: ID,
            webhook_id: event.webhook_id,
            event_type: event.event_type,
            payload: event.payload,
            ordering_value: "SUB-1234",
            received_at: event.received_at,
            claim_expires_at: LATER,
            receipt: RECEIPT,
          },
        ],
      },
    },
    problems: { 404: noSource() },
  },
  ackWebhookEvent: {
    params: { id: ID },
    request: { receipt: RECEIPT },
    responses: { 200: event },
    problems: {
      404: { detail: `No event "${ID}" of source "billing".` },
      409: {
        type: "/problems/claim-not-current",
        title: "Claim not current",
        detail: `Event ${ID} was not acknowledged: this claim lapsed before the ack. Nothing was changed; claim again to process it.`,
        state: "expired",
        claim_expires_at: LATER,
      },
    },
  },
  listWebhookEvents: { responses: { 200: { items: [event], next_cursor: null } }, problems: { 404: noSource() } },
  putRateLimitPolicy: { request: { algorithm: "sliding_window", limit: 100, window_ms: 60000 }, responses: { 200: policy, 201: policy } },
  getRateLimitPolicy: { responses: { 200: policy }, problems: { 404: noPolicy() } },
  deleteRateLimitPolicy: { responses: {}, problems: { 404: noPolicy() } },
  putRateLimitOverride: {
    request: { limit: 1000, valid_from: "2030-05-01T00:00:00Z", valid_to: "2030-06-01T00:00:00Z" },
    responses: { 200: override, 201: override },
    problems: {
      404: noPolicy(),
      409: {
        type: "/problems/override-conflict",
        title: "Override period overlaps",
        detail: '"customer-42" already has a "api" override during part of that period.',
        conflicts: [{ ...override, valid_from: "2030-05-15T00:00:00.000Z", valid_to: null }],
      },
    },
  },
  listRateLimitPolicies: { params: { limit: 100 }, responses: { 200: { items: [policy], next_cursor: null } } },
  listRateLimitPolicyOverrides: { responses: { 200: { items: [override], next_cursor: null } }, problems: { 404: noPolicy() } },
  listRateLimitOverrides: { responses: { 200: { items: [override] } }, problems: { 404: noPolicy() } },
  deleteRateLimitOverride: {
    params: { valid_from: "2030-05-01T00:00:00Z" },
    responses: {},
    problems: { 404: { detail: 'No matching override of "customer-42" in "api".' } },
  },
  checkRateLimit: {
    request: { policy: "api", key: "customer-42", cost: 1 },
    responses: { 200: { allowed: true, policy: "api", key: "customer-42", limit: 100, remaining: 99, reset_ms: 60000, reason: "limit" }, 429: denied },
    problems: {
      404: noPolicy(),
      429: {
        type: "/problems/quota-exceeded",
        title: "Quota exceeded",
        detail: '"customer-42" is over the limit of "daily"; nothing was consumed.',
        "violated-policies": ["daily"],
        ...denied,
        policy: "daily",
        limit: 10000,
        reset_ms: 3600000,
        retry_after_ms: 3600000,
        violated_policies: ["daily"],
      },
    },
  },
  ...authzExamples(),
  refundRateLimit: {
    request: { policy: "api", key: "customer-42", cost: 1 },
    responses: { 200: { policy: "api", key: "customer-42", limit: 100, remaining: 100, reset_ms: 45000, refunded: 1 } },
    problems: { 404: noPolicy() },
  },
  listRateLimitPolicyKeys: {
    params: { window: "1h", order: "denied" },
    responses: {
      200: {
        policy: "api",
        window: "1h",
        order: "denied",
        from: "2030-04-30T11:00:00.000Z",
        window_end: "2030-04-30T12:01:00.000Z",
        items: [
          { key: "customer-42", admitted: 100, attempted: 5240, rejected: 5140, consumed: 100 },
          { key: "customer-7", admitted: 100, attempted: 180, rejected: 80, consumed: 100 },
        ],
        next_cursor: null,
      },
    },
    problems: { 404: noPolicy() },
  },
  getRateLimitPolicyDecisions: {
    params: { minutes: 60 },
    responses: {
      200: {
        policy: "api",
        items: [
          { minute: "2030-04-30T11:58:00Z", allowed: 4100, denied: 12, unenforced: 0, unavailable: 0 },
          { minute: "2030-04-30T11:59:00Z", allowed: 4310, denied: 5128, unenforced: 0, unavailable: 0 },
        ],
      },
    },
    problems: { 404: noPolicy() },
  },
  getMetrics: { responses: {} },
  getRateLimitUsage: {
    params: { policy: "api", key: "customer-42", from: "2030-04-30T11:00:00Z", to: "2030-04-30T12:00:00Z" },
    responses: {
      200: {
        window_start: "2030-04-30T12:00:00.000Z",
        window_end: "2030-04-30T12:01:00.000Z",
        admitted: 87,
        attempted: 112,
        rejected: 25,
        consumed: 87,
        policy: "api",
        key: "customer-42",
        algorithm: "sliding_window",
        limit: 100,
        window_ms: 60000,
        windows: [
          { window_start: "2030-04-30T11:58:00.000Z", window_end: "2030-04-30T11:59:00.000Z", admitted: 100, attempted: 140, rejected: 40, consumed: 100 },
          { window_start: "2030-04-30T11:59:00.000Z", window_end: "2030-04-30T12:00:00.000Z", admitted: 64, attempted: 64, rejected: 0, consumed: 64 },
        ],
        deny_cached_until: null,
      },
    },
    problems: { 404: noPolicy() },
  },
};

/** The forward-auth check's examples, one per documented method (functions/ratelimits/authz-routes.ts authzOperations). */
function authzExamples(): Record<string, OperationExamples> {
  const allowed = { allowed: true, policy: "api", key: "203.0.113.9", limit: 100, remaining: 99, reset_ms: 60000, reason: "limit" };
  const refused = {
    type: "/problems/rate-limited",
    title: "Too many requests",
    detail: '"203.0.113.9" is over the limit of "api"; nothing was consumed.',
    ...allowed,
    allowed: false,
    remaining: 0,
    retry_after_ms: 42000,
  };
  const ex: OperationExamples = {
    params: { policy: ["api"], key: ["ip"], cost: 1, deny_status: 429 },
    responses: { 200: allowed },
    problems: { 401: { ...refused, status: 401 }, 403: { ...refused, status: 403 }, 404: noPolicy(), 429: refused },
  };
  return Object.fromEntries(
    ["authorizeRequest", "authorizeRequestPost", "authorizeRequestPut", "authorizeRequestPatch", "authorizeRequestDelete"].map((id) => [id, ex]),
  );
}

function notCurrentHolder(what: "Lease" | "Permit"): Json {
  return {
    type: "/problems/not-current-holder",
    title: "Not the current holder",
    detail: `${what} timed out; nothing was changed. Acquire again to get a new claim and fencing token.`,
    state: "timed_out",
    released_at: null,
    timed_out_at: LATER,
  };
}
function noSemaphore(): Json {
  return { detail: 'No semaphore "fragile-upstream": create it with PUT /v1/semaphores/{name}.' };
}
function noSource(): Json {
  return { detail: 'No webhook source "billing". Register it with PUT /v1/webhooks/sources/billing.' };
}
function noPolicy(): Json {
  return { detail: 'No rate-limit policy named "api".' };
}
