// Rate-limit checks with Postgres frozen (SIGSTOP of every one of its processes), then thawed:
// a fail-open policy answers 200 reason "timeout" and a fail-closed one 504/503, each within its
// timeout_ms plus BOUND_MS (generous: the machine is shared; the feature's promise, not a speed
// claim: Postgres stays frozen until every answer is in, so an answer that waited for it instead of
// its deadline would never come, and any finite bound tells the two apart); after SIGCONT the same app decides again, and the database never holds more than the
// limit. This suite runs its OWN embedded Postgres and bridge (as test/across/faults.freeze.test.ts does):
// freezing the shared one would stall every other suite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type OwnStack, ownStack, type Served, serveApp, settled } from "../support";

const BOUND_MS = 5_000;
let stack: OwnStack;
let app: Served;
let api: ReturnType<typeof client>;
const q = (text: string, params: unknown[] = []) => stack.q(text, params);
const freeze = () => stack.freeze();
const thaw = () => stack.thaw();

beforeAll(async () => {
  stack = await ownStack("rl-freeze");
  app = await serveApp({ ...stack.env, RATELIMIT_DENY_CACHE: "off" });
  api = client(app.url);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await stack?.stop();
}, 60_000);

async function timed(body: Record<string, unknown>) {
  const started = Date.now();
  const res = await api("POST", "/v1/ratelimits/check", body);
  return { ...res, ms: Date.now() - started };
}

describe("rate-limit checks with Postgres frozen", () => {
  it("fail open → 200 timeout, fail closed → 504/503, each within timeout_ms + bound; thawed, checks decide again and never over the limit", async () => {
    for (const [name, on_unavailable] of [
      ["open", "allow"],
      ["closed", "deny"],
    ] as const) {
      expect(
        (await api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 5, window_ms: 86_400_000, timeout_ms: 500, on_unavailable }))
          .status,
      ).toBe(201);
    }
    expect((await timed({ policy: "open", key: "k" })).status).toBe(200);
    freeze();
    let answers: Array<Awaited<ReturnType<typeof timed>>>;
    try {
      answers = await Promise.all([
        ...Array.from({ length: 10 }, () => timed({ policy: "open", key: "k" })),
        ...Array.from({ length: 10 }, () => timed({ policy: "closed", key: "k" })),
        ...Array.from({ length: 5 }, () => timed({ policies: ["open", "closed"], key: "k" })),
      ]);
    } finally {
      thaw();
    }
    for (const [i, a] of answers.entries()) {
      expect(a.ms, `answer ${i}: ${a.status} ${a.text}`).toBeLessThan(500 + BOUND_MS);
      if (i < 10) {
        expect(a.status, a.text).toBe(200);
        expect(a.json).toMatchObject({ allowed: true, reason: "timeout" });
        expect(a.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
      } else {
        expect([503, 504], a.text).toContain(a.status);
        expect(a.json).toMatchObject({ reason: "timeout", consumed: a.status === 504 ? "unknown" : "none" });
        expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    await settled(stack.bridge, q, { everywhere: true, attempts: 200 });
    // Thawed: the same app decides again, and whatever the frozen checks committed late, never past the limit.
    const after = await timed({ policy: "closed", key: "after" });
    expect(after.status).toBe(200);
    expect(after.json.reason).toBe("limit");
    const rows = await q("SELECT policy, consumed::int FROM ratelimit_counters WHERE key = 'k' ORDER BY policy");
    for (const r of rows) expect(r.consumed).toBeLessThanOrEqual(5);
  }, 120_000);
});
