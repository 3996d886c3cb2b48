// A thousand requests at once, in the real Workers runtime (wrangler dev / workerd) against the
// default local stack: every one-statement decision goes over HTTP to the bridge's SQL endpoint and
// queues at its bounded pool, so a burst is answered exactly and without a single 5xx — no session
// storm, no Worker restart. The database afterwards agrees with every answer.
import { describe, expect, it } from "vitest";
import { ownSocket } from "../../dev/wrangler";
import { roomInDay, SUITE_BUDGET_MS, sql, workerSuite } from "../support";
import { postAlone } from "../support/own-connection";

// Sent to the Worker's own workerd socket, past wrangler's dev proxy (ownSocket, dev/wrangler.ts).
// What this judges is exactness and no 5xx, not latency (the bench measures that): the suites' wide
// request budget (test/support/index.ts), and the policies' timeout_ms as wide, so a neighbour's load on
// the machine, which can hold an answer past the 5 s default, cannot make a slow answer a 504.
const suite = workerSuite("burst_runtime");
const N = 1000;

/** One POST on a connection of its own (as 1000 different clients would send it), bounded in time. */
const post = (path: string, body: unknown) => postAlone(ownSocket(suite.worker), path, body);

/** N simultaneous POSTs of `body(i)` to `path`: zero 5xx, and the answers counted by status. */
async function burst(path: string, body: (i: number) => unknown) {
  const results = await Promise.all(Array.from({ length: N }, (_, i) => post(path, body(i))));
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  const errors = results.filter((r) => r.status >= 500);
  expect(
    errors.length,
    `5xx answers: ${errors
      .slice(0, 3)
      .map((r) => `${r.status} ${r.text}`)
      .join(" | ")}`,
  ).toBe(0);
  return { results, counts };
}

describe(`${N} simultaneous requests through wrangler dev, zero 5xx`, () => {
  it.each([
    ["fixed_window", "burst-fw"],
    ["token_bucket", "burst-tb"],
  ])("POST /v1/ratelimits/check, one key, %s limit 50 → exactly 50 × 200 and 950 × 429", async (algorithm, policy) => {
    const put = await suite.api("PUT", `/v1/ratelimits/policies/${policy}`, {
      algorithm,
      limit: 50,
      window_ms: 86_400_000,
      timeout_ms: Number(SUITE_BUDGET_MS),
    });
    expect(put.status).toBe(201);
    // A fixed window's days start at midnight UTC: the whole burst must fall in one (the token bucket
    // has no such edge, and at most waits as well).
    await roomInDay();
    const { counts, results } = await burst("/v1/ratelimits/check", () => ({ policy, key: "hot" }));
    expect(counts).toEqual({ 200: 50, 429: 950 });
    expect(results.filter((r) => r.status === 200).every((r) => r.json.allowed === true)).toBe(true);
    // The database admitted exactly the 50 the Worker said were allowed (refusals answered from the
    // isolate's deny cache reach `attempted` and `rejected` only with its flush, so they may still be lower than N).
    const [row] = await sql<{ admitted: number; attempted: number; rejected: number }>(
      suite.db,
      "SELECT admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = $1 AND key = 'hot'",
      [policy],
    );
    expect(row.admitted).toBe(50);
    expect(row.attempted - row.rejected).toBe(50);
  });

  it("POST /v1/reservations, one resource, one interval → exactly 1 × 201 and 999 × 409", async () => {
    const { counts, results } = await burst("/v1/reservations", (i) => ({
      resource: "burst/room",
      holder: `h${i}`,
      start: "2030-01-01T00:00:00Z",
      end: "2030-01-02T00:00:00Z",
    }));
    expect(counts).toEqual({ 201: 1, 409: 999 });
    const won = results.find((r) => r.status === 201)!;
    expect(await sql(suite.db, "SELECT id::text, holder FROM reservations WHERE resource = 'burst/room' AND cancelled_at IS NULL")).toEqual([
      { id: won.json.id, holder: won.json.holder },
    ]);
  });

  it("POST /v1/semaphores/{name}/acquire, 4 permits, claims that outlive the burst → 4 × 201 with slots 0–3 and 996 × 429", async () => {
    expect((await suite.api("PUT", "/v1/semaphores/burst", { permits: 4, default_ttl_ms: 300_000 })).status).toBe(201);
    const { counts, results } = await burst("/v1/semaphores/burst/acquire", (i) => ({ holder: `w${i}`, ttl_ms: 300_000 }));
    expect(counts).toEqual({ 201: 4, 429: 996 });
    const won = results.filter((r) => r.status === 201).map((r) => r.json);
    expect(won.map((p) => p.slot).sort()).toEqual([0, 1, 2, 3]);
    const live = await sql<{ id: string }>(
      suite.db,
      "SELECT id::text FROM permits WHERE kind = 'semaphore' AND name = 'burst' AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > now()",
    );
    expect(live.map((p) => p.id).sort()).toEqual(won.map((p) => p.permit_id).sort());
  });
});
