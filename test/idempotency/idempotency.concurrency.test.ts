// Simultaneous retries of one keyed request, over real HTTP against real Postgres: it runs once.
import { describe, expect, it } from "vitest";
import { SUITE_BUDGET_MS, servedApp, sql } from "../support";

// These judge exactly-once, not latency: a keyed request holds its transaction (the key and the
// resource's lock) across several round trips, and ten of them wait in turn for one resource. Under
// a neighbour's load the last could wait past the 2 s default lock timeout and answer a correct 503
// (nothing kept, its key let go), after which a retry of that key runs afresh: two fresh answers for
// one key, as in one CI run (reproduced with LOCK_TIMEOUT_MS=3). So the lock waits get the suite's budget.
const suite = servedApp("idempotency_burst", { LOCK_TIMEOUT_MS: SUITE_BUDGET_MS });

describe("20 simultaneous identical POST /v1/reservations with one Idempotency-Key", () => {
  it("→ exactly one reservation; every answer is the 201, its replay, or 409 in-progress; then another body → 422", async () => {
    const body = { resource: "idem-burst", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z", metadata: { order: "A-1" } };
    const headers = { "Idempotency-Key": "burst-key-1" };
    const results = await Promise.all(Array.from({ length: 20 }, () => suite.api("POST", "/v1/reservations", body, headers)));

    const counts: Record<string, number> = {};
    for (const r of results) {
      const kind = r.status === 201 ? (r.headers.get("idempotent-replayed") ? "201 replay" : "201") : `${r.status} ${r.json?.type}`;
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    console.log("keyed burst outcomes:", counts);
    // Exactly one request ran; never a reservation-conflict (that would be a second run meeting the first).
    expect(counts["201"]).toBe(1);
    expect(Object.keys(counts).every((k) => ["201", "201 replay", "409 /problems/idempotency-key-in-use"].includes(k))).toBe(true);
    const original = results.find((r) => r.status === 201 && !r.headers.get("idempotent-replayed"))!;
    for (const r of results.filter((x) => x.status === 201)) expect(r.text).toBe(original.text);
    for (const r of results.filter((x) => x.status === 409)) expect(r.headers.get("retry-after")).toBe("1");

    const rows = await sql<{ id: string }>(suite.db, "SELECT id FROM reservations WHERE resource = 'idem-burst'");
    expect(rows).toEqual([{ id: original.json.id }]);
    expect(await sql(suite.db, "SELECT response_status FROM idempotency_keys WHERE key = 'burst-key-1'")).toEqual([{ response_status: 201 }]);

    // Afterwards, every retry is a replay.
    const later = await suite.api("POST", "/v1/reservations", body, headers);
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(later.text).toBe(original.text);

    const other = await suite.api("POST", "/v1/reservations", { ...body, holder: "someone-else" }, headers);
    expect(other.status).toBe(422);
    expect(other.json.type).toBe("/problems/idempotency-key-reused");
    expect(await sql(suite.db, "SELECT count(*)::int AS c FROM reservations WHERE resource = 'idem-burst'")).toEqual([{ c: 1 }]);
  });

  it("10 keys × 5 simultaneous retries each, all on one resource and overlapping → one run per key, one reservation overall", async () => {
    const body = (i: number) => ({ resource: "idem-shared", holder: `h${i}`, start: "2022-01-01T00:00:00Z", end: "2022-01-02T00:00:00Z" });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, j) => {
        const i = j % 10;
        return suite.api("POST", "/v1/reservations", body(i), { "Idempotency-Key": `shared-${i}` }).then((r) => ({ i, r }));
      }),
    );
    // Each key ran once: its outcome (201 or 409 overlap) is stored, and every fresh answer per key is unique.
    const fresh = results
      .filter(({ r }) => r.status !== 409 || r.json.type !== "/problems/idempotency-key-in-use")
      .filter(({ r }) => !r.headers.get("idempotent-replayed"));
    const perKey = new Map<number, number>();
    for (const { i } of fresh) perKey.set(i, (perKey.get(i) ?? 0) + 1);
    const outcomes = (i: number) =>
      results.filter((x) => x.i === i).map(({ r }) => `${r.status} ${r.json?.type ?? ""}${r.headers.get("idempotent-replayed") ? " replay" : ""}`);
    for (const [i, c] of perKey) expect(c, `key shared-${i} answered fresh ${c} times: ${outcomes(i).join(", ")}`).toBe(1);
    expect(results.every(({ r }) => [201, 409].includes(r.status))).toBe(true);
    const winners = results.filter(({ r }) => r.status === 201);
    expect(new Set(winners.map(({ i }) => i)).size).toBe(1);
    expect(await sql(suite.db, "SELECT count(*)::int AS c FROM reservations WHERE resource = 'idem-shared'")).toEqual([{ c: 1 }]);
    // Every key that finished has its outcome stored; no key is stored twice.
    const stored = await sql<{ key: string; response_status: number }>(
      suite.db,
      "SELECT key, response_status FROM idempotency_keys WHERE key LIKE 'shared-%' ORDER BY key",
    );
    expect(stored.filter((s) => s.response_status === 201)).toHaveLength(1);
    expect(stored.every((s) => s.response_status === 201 || s.response_status === 409)).toBe(true);
  });
});
