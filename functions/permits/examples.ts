// The examples of the lock, semaphore and invoice operations in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { ID, type Json, LATER, NOW, type OperationExamples } from "../core/examples";

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

export const PERMIT_EXAMPLES: Record<string, OperationExamples> = {
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
};

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
