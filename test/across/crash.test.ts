// Postgres killed (SIGKILL of every one of its processes, as a compute that dies) right after a
// mixed burst, then restarted on the same data (crash recovery). This suite runs its OWN embedded
// Postgres and bridge, persistent: fsync on and synchronous_commit on, as in production.
//
// What must hold (docs/ratelimits.md#durability): every write answered 2xx before the kill is there
// after the restart — reservations, leases, semaphore permits, webhook receipts (every scheme),
// bookings — and every keyed one (Idempotency-Key, webhook id) replays its answer; a durable
// policy's counter holds exactly the checks it admitted; a policy that is not durable (its counter
// commits asynchronously) holds at most what it admitted and loses at most what was admitted in the
// last moments before the kill (Postgres flushes asynchronous commits within 3 × wal_writer_delay;
// the bound below adds a second for a walwriter starved on a shared machine).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type OwnStack, ownStack, type Served, serveApp, signalPostgres, TOKEN, until } from "../support";
import { CAPABILITIES, type Query, retryable } from "../support/capabilities";

const WAL_WRITER_DELAY_MS = 200; // Postgres's default, which the suite's cluster keeps
const SLACK_MS = 1_000;
const PER_CAPABILITY = 24;
const CHECKS = 150;
let stack: OwnStack;
let app: Served;
const q: Query = (text, params) => stack.q(text, params);

beforeAll(async () => {
  stack = await ownStack("crash", { persistent: true });
  app = await serveApp({ ...stack.env, DB_BUDGET_MS: "20000", LOCK_TIMEOUT_MS: "10000" });
}, 180_000);

afterAll(async () => {
  await app?.close();
  await stack?.stop();
}, 60_000);

async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + p, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, at: Date.now() };
}

describe("Postgres killed right after a mixed burst, then restarted", () => {
  it("keeps every acknowledged write; durable counters exact, others within the documented window", async () => {
    const api = client(app.url);
    const [{ setting }] = await q<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'synchronous_commit'");
    expect(setting).toBe("on");
    const writes = CAPABILITIES.filter((c) => c.name !== "ratelimits");
    const acked: { cap: (typeof writes)[number]; tag: string; again: (() => ReturnType<typeof call>) | null; status: number }[] = [];
    const burst: Promise<unknown>[] = [];
    for (const [n, cap] of writes.entries()) {
      const key = `crash-${n}-${Math.random().toString(36).slice(2, 8)}`;
      for (const c of cap.prepare?.(key) ?? []) expect((await call(c.method, c.path, c.body)).status).toBeLessThan(300);
      for (let i = 0; i < PER_CAPABILITY; i++) {
        const tag = `t${n}-${i}-${Math.random().toString(36).slice(2, 8)}`;
        const keyed = cap.dedupe === "natural" || i % 2 === 1;
        const make = keyed ? retryable(cap, key, tag, i % 6) : () => cap.write(key, tag, i % 6);
        const send = () => {
          const r = make();
          return call(r.method, r.path, r.body, r.headers);
        };
        burst.push(
          send().then((res) => {
            if (cap.ok.includes(res.status)) acked.push({ cap, tag, again: keyed ? send : null, status: res.status });
          }),
        );
      }
    }
    for (const [name, durable] of [
      ["crash-durable", true],
      ["crash-async", false],
    ] as const) {
      const put = await api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 1_000_000, window_ms: 31_622_400_000, durable });
      expect(put.status).toBe(201);
      expect(put.json.durable).toBe(durable);
    }
    await Promise.all(burst);
    // The counters last, each check as the Worker sends it; the asynchronous ones right before the kill.
    const checks = async (policy: string, n = CHECKS) =>
      Promise.all(Array.from({ length: n }, (_, i) => call("POST", "/v1/ratelimits/check", { policy, key: `k${i % 3}` })));
    const durableAnswers = await checks("crash-durable");
    // Half of the asynchronous checks well before the kill (they must survive), half right before it.
    const windowMs = 3 * WAL_WRITER_DELAY_MS + SLACK_MS;
    const early = await checks("crash-async", CHECKS / 2);
    await new Promise((r) => setTimeout(r, windowMs + 500));
    const asyncAnswers = [...early, ...(await checks("crash-async", CHECKS / 2))];
    signalPostgres(stack.pg.dataDir, "SIGKILL");
    const killedAt = Date.now();

    await stack.startPostgres();
    await until(async () => (await call("GET", "/health")).status === 200, 60_000, "the app to reach the restarted Postgres");

    // Every acknowledged write is there, and every keyed one replays its answer.
    const missing: string[] = [];
    for (const a of acked) if ((await a.cap.applied(q, a.tag)) !== 1) missing.push(`${a.cap.name} ${a.tag}`);
    expect(missing).toEqual([]);
    const replays = await Promise.all(acked.filter((a) => a.again).map(async (a) => ({ a, res: await a.again!() })));
    const notReplayed = replays.filter(({ a, res }) => res.status !== a.status || res.headers.get("idempotent-replayed") !== "true");
    expect(notReplayed.map(({ a, res }) => `${a.cap.name} ${a.tag}: ${res.status} ${res.headers.get("idempotent-replayed")}`)).toEqual([]);
    for (const cap of writes) for (const inv of cap.invariants) expect(await q(inv)).toEqual([]);

    const admitted = async (policy: string) =>
      (await q<{ n: number }>("SELECT coalesce(sum(admitted), 0)::int AS n FROM ratelimit_counters WHERE policy = $1", [policy]))[0].n;
    const allowed = (answers: Awaited<ReturnType<typeof call>>[]) => answers.filter((r) => r.status === 200);
    expect(allowed(durableAnswers)).toHaveLength(CHECKS);
    expect(await admitted("crash-durable")).toBe(CHECKS);
    const asyncAllowed = allowed(asyncAnswers);
    const survived = await admitted("crash-async");
    const surelyFlushed = asyncAllowed.filter((r) => r.at < killedAt - windowMs).length;
    console.log(
      `crash: ${acked.length} writes acknowledged, all there; durable counter ${CHECKS}/${CHECKS}; ` +
        `asynchronous counter ${survived} of ${asyncAllowed.length} admitted survived (${asyncAllowed.length - survived} lost; ` +
        `${surelyFlushed} acknowledged more than ${windowMs} ms before the kill)`,
    );
    expect(survived).toBeLessThanOrEqual(asyncAllowed.length);
    expect(surelyFlushed).toBeGreaterThanOrEqual(CHECKS / 2);
    expect(survived).toBeGreaterThanOrEqual(surelyFlushed);
  }, 600_000);
});
