// The examples of the rate-limit operations and the forward-auth check in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { type Json, NOW, type OperationExamples } from "../core/examples";

const policy = {
  name: "api",
  algorithm: "sliding_window",
  limit: 100,
  window_ms: 60000,
  log: false,
  history_ms: 604800000,
  timeout_ms: 5000,
  on_unavailable: "deny",
  shadow: false,
  durable: false,
  created_at: NOW,
  updated_at: NOW,
};
const override = {
  policy: "api",
  key: "customer-42",
  limit: 1000,
  valid_from: "2030-05-01T00:00:00.000Z",
  valid_to: "2030-06-01T00:00:00.000Z",
  shadow: false,
};
const listEntry = {
  list: "deny",
  policy: "api",
  kind: "ip",
  value: "192.0.2.0/24",
  reason: "card testing",
  expires_at: "2030-05-01T00:00:00Z",
  created_at: NOW,
  updated_at: NOW,
  expired: false,
};
const listMatch = { list: "deny", policy: "api", kind: "ip", value: "192.0.2.0/24", reason: "card testing" };
const denied = { allowed: false, policy: "api", key: "customer-42", limit: 100, remaining: 0, reset_ms: 12500, retry_after_ms: 12500, reason: "limit" };

export const RATELIMIT_EXAMPLES: Record<string, OperationExamples> = {
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
    request: { policy: "api", key: "customer-42", cost: 1, ip: "192.0.2.7" },
    responses: { 200: { allowed: true, policy: "api", key: "customer-42", limit: 100, remaining: 99, reset_ms: 60000, reason: "limit" }, 429: denied },
    problems: {
      403: {
        type: "/problems/denied-by-list",
        title: "Denied by a deny list",
        detail:
          '"customer-42" is refused: the address "192.0.2.0/24" is on the policy "api" deny list: card testing. Nothing was counted; a retry is refused alike.',
        policy: "api",
        key: "customer-42",
        allowed: false,
        entry: listMatch,
      },
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
          { minute: "2030-04-30T11:58:00Z", allowed: 4100, denied: 12, would_refuse: 0, unenforced: 0, unavailable: 0 },
          { minute: "2030-04-30T11:59:00Z", allowed: 4310, denied: 5128, would_refuse: 0, unenforced: 0, unavailable: 0 },
        ],
      },
    },
    problems: { 404: noPolicy() },
  },
  getRateLimitUsage: {
    params: { policy: "api", key: "customer-42", from: "2030-04-30T11:00:00Z", to: "2030-04-30T12:00:00Z" },
    responses: {
      200: {
        window_start: "2030-04-30T12:00:00.000Z",
        window_end: "2030-04-30T12:01:00.000Z",
        admitted: 87,
        attempted: 112,
        rejected: 25,
        would_refuse: 0,
        consumed: 87,
        policy: "api",
        key: "customer-42",
        algorithm: "sliding_window",
        limit: 100,
        window_ms: 60000,
        shadow: false,
        windows: [
          {
            window_start: "2030-04-30T11:58:00.000Z",
            window_end: "2030-04-30T11:59:00.000Z",
            admitted: 100,
            attempted: 140,
            rejected: 40,
            would_refuse: 0,
            consumed: 100,
          },
          {
            window_start: "2030-04-30T11:59:00.000Z",
            window_end: "2030-04-30T12:00:00.000Z",
            admitted: 64,
            attempted: 64,
            rejected: 0,
            would_refuse: 0,
            consumed: 64,
          },
        ],
        deny_cached_until: null,
      },
    },
    problems: { 404: noPolicy() },
  },
  putRateLimitListEntry: {
    params: { list: "deny" },
    request: { kind: "ip", value: "192.0.2.0/24", policy: "api", reason: "card testing", expires_at: "2030-05-01T00:00:00Z" },
    responses: { 200: listEntry, 201: listEntry },
    problems: { 404: noPolicy() },
  },
  listRateLimitListEntries: { params: { list: "deny" }, responses: { 200: { items: [listEntry], next_cursor: null } } },
  deleteRateLimitListEntry: {
    params: { list: "deny", kind: "ip", value: "192.0.2.0/24", policy: "api" },
    responses: {},
    problems: { 404: { detail: 'No deny list entry ip "192.0.2.0/24" for "api".' } },
  },
  resetRateLimitUsage: {
    params: { policy: "api", key: "customer-42" },
    responses: { 200: { key: "customer-42", policies: ["api"], at: "2030-04-30T12:00:30.120Z" } },
    problems: { 404: noPolicy() },
  },
};

/** The forward-auth check's examples, one per documented method (authz-routes.ts authzOperations). */
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

function noPolicy(): Json {
  return { detail: 'No rate-limit policy named "api".' };
}
