// Forwarding in the Workers runtime (`wrangler dev`, workerd), to real HTTP targets on loopback,
// verified at the target with the `standardwebhooks` library. The immediate attempt runs in the
// receiver's waitUntil; retries are the cron's (`/__scheduled`, wrangler dev --test-scheduled); the
// racing cases run a second `wrangler dev` on the same database (a second isolate).
import { afterAll, describe, expect, inject, it } from "vitest";
import { ownSocket, startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import { client, SUITE_BUDGET_MS, sql, TOKEN, until, workerSuite } from "../support";
import { deliver, forwardTo, startTarget, type Target } from "./forward.support";
import { dbNowS, newSecret } from "./webhooks.support";

const suite = workerSuite("webhooks_forward_runtime");
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});
async function target(...args: Parameters<typeof startTarget>) {
  const t = await startTarget(...args);
  targets.push(t);
  return t;
}
const anon = () => client(ownSocket(suite.worker), null);
const cron = (w: WranglerDev = suite.worker) => fetch(`${w.url}/__scheduled?cron=*+*+*+*+*`).then((r) => r.text());
const events = async (source: string) =>
  (await suite.api("GET", `/v1/webhooks/${source}/events?limit=1000`)).json.items as Array<{ id: string; delivery: { state: string; attempts: number } }>;
/** Runs the cron every few seconds until `check` holds (the cron stands in for wrangler's every-minute trigger). */
async function cronUntil(check: () => Promise<boolean>, ms: number, what: string, w: WranglerDev[] = [suite.worker]) {
  let last = 0;
  await until(
    async () => {
      if (Date.now() - last > 3_000) {
        last = Date.now();
        for (const x of w) void cron(x).catch(() => undefined);
      }
      return check();
    },
    ms,
    what,
  );
}

/** `n` jobs, at most `width` at once. */
async function limited<T>(n: number, width: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await job(i);
      }
    }),
  );
  return out;
}

describe("forwarding in wrangler dev", () => {
  it("200 deliveries, each sent twice by the sender → the target gets exactly 200 distinct webhook-ids, each verified by standardwebhooks", async () => {
    const t = await target(() => ({ status: 204 }));
    const secret = newSecret();
    await forwardTo(suite.api, "rt-fwd-200", secret, t);
    const now = await dbNowS(suite.db);
    const answers = await limited(400, 40, (i) => deliver(anon(), "rt-fwd-200", secret, `msg-${i % 200}`, { type: "t", data: { i: i % 200 } }, now));
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    const stored = new Set(answers.map((a) => a.json.id as string));
    expect(stored.size).toBe(200);
    await cronUntil(async () => (await events("rt-fwd-200")).every((e) => e.delivery.state === "delivered"), 120_000, "all 200 delivered");
    expect(t.received).toHaveLength(200);
    expect(new Set(t.received.map((r) => r.id))).toEqual(stored);
    expect(t.received.filter((r) => !r.verified)).toEqual([]);
    // The body is the sender's, byte for byte.
    const byId = new Map(answers.map((a, i) => [a.json.id, JSON.stringify({ type: "t", data: { i: i % 200 } })]));
    expect(t.received.filter((r) => r.body !== byId.get(r.id))).toEqual([]);
  });

  it("500, 500, then 200: three attempts listed, delivered once", async () => {
    const t = await target((_r, nth) => ({ status: nth < 2 ? 500 : 200 }));
    const secret = newSecret();
    await forwardTo(suite.api, "rt-fwd-retry", secret, t, { retry_schedule_ms: [1_000, 1_000, 1_000] });
    const r = await deliver(anon(), "rt-fwd-retry", secret, "msg-r", { type: "t" }, await dbNowS(suite.db));
    await cronUntil(async () => (await events("rt-fwd-retry"))[0].delivery.state === "delivered", 90_000, "delivered");
    expect(t.received.map((x) => [x.id, x.attempt, x.verified])).toEqual([
      [r.json.id, "1", true],
      [r.json.id, "2", true],
      [r.json.id, "3", true],
    ]);
    const list = (await suite.api("GET", `/v1/webhooks/rt-fwd-retry/events/${r.json.id}/attempts`)).json.items;
    expect(list.map((a: { n: number; status: number; outcome: string }) => [a.n, a.status, a.outcome])).toEqual([
      [1, 500, "failed"],
      [2, 500, "failed"],
      [3, 200, "delivered"],
    ]);
  });

  it("a target down longer than the schedule: failed, in /metrics; redelivered once it is back → delivered", async () => {
    // A port that nothing listens on: connections are refused until the target comes back on it.
    const probe = await startTarget();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const secret = newSecret();
    const down = { url: `http://127.0.0.1:${port}/hook`, secret: newSecret() } as Target;
    await forwardTo(suite.api, "rt-fwd-down", secret, down, { retry_schedule_ms: [1_000] });
    const r = await deliver(anon(), "rt-fwd-down", secret, "msg-d", { type: "t" }, await dbNowS(suite.db));
    await cronUntil(async () => (await events("rt-fwd-down"))[0].delivery.state === "failed", 90_000, "failed");
    const attempts = (await suite.api("GET", `/v1/webhooks/rt-fwd-down/events/${r.json.id}/attempts`)).json.items;
    expect(attempts.map((a: { outcome: string; status: number | null }) => [a.outcome, a.status])).toEqual([
      ["error", null],
      ["error", null],
    ]);
    const metrics = (await suite.api("GET", "/metrics")).text;
    expect(metrics).toContain('admit_webhook_forward_failed{source="rt-fwd-down"} 1');
    const back = await target(() => ({ status: 200 }), down.secret, port);
    expect((await suite.api("POST", `/v1/webhooks/rt-fwd-down/events/${r.json.id}/redeliver`)).status).toBe(202);
    await cronUntil(async () => (await events("rt-fwd-down"))[0].delivery.state === "delivered", 60_000, "redelivered");
    expect(back.received.map((x) => [x.id, x.verified])).toEqual([[r.json.id, true]]);
    expect((await suite.api("GET", "/metrics")).text).toContain('admit_webhook_forward_failed{source="rt-fwd-down"} 0');
  });

  it("ordered, 5 values × 20 events, the target slow and failing every 4th request: per value the target sees the events in order", async () => {
    let n = 0;
    const t = await target(() => ({ status: ++n % 4 === 0 ? 500 : 200, delayMs: 20 + (n % 3) * 30 }));
    const secret = newSecret();
    await forwardTo(suite.api, "rt-fwd-order", secret, t, { ordered: true, retry_schedule_ms: Array(10).fill(1_000) }, { ordering_key: "/data/k" });
    const now = await dbNowS(suite.db);
    // Each value's events are sent one after another (their order is the order received); the values at once.
    await Promise.all(
      Array.from({ length: 5 }, async (_, v) => {
        for (let i = 0; i < 20; i++) {
          const r = await deliver(anon(), "rt-fwd-order", secret, `msg-${v}-${i}`, { type: "t", data: { k: `v${v}`, i } }, now);
          expect(r.status).toBe(200);
        }
      }),
    );
    await cronUntil(async () => (await events("rt-fwd-order")).every((e) => e.delivery.state === "delivered"), 300_000, "all 100 delivered");
    for (let v = 0; v < 5; v++) {
      const seen = t.received
        .map((r) => JSON.parse(r.body).data)
        .filter((d) => d.k === `v${v}`)
        .map((d) => d.i as number);
      // In order: never an event before an earlier one (a failed one is sent again before the next).
      expect(
        seen.every((i, j) => j === 0 || i >= seen[j - 1]),
        `v${v}: ${seen.join(",")}`,
      ).toBe(true);
      expect(new Set(seen).size).toBe(20);
    }
    expect(t.received.length).toBeGreaterThan(100); // some failed and were retried
  });

  it("a target that hangs: the sender is answered while the attempt waits; the attempt ends at timeout_ms as a failed one", async () => {
    const t = await target(() => ({ status: 200, hang: true }));
    const secret = newSecret();
    await forwardTo(suite.api, "rt-fwd-hang", secret, t, { timeout_ms: 5_000, retry_schedule_ms: [60_000] });
    const r = await deliver(anon(), "rt-fwd-hang", secret, "msg-h", { type: "t" }, await dbNowS(suite.db));
    expect(r.status).toBe(200);
    // The answer came before the target's request was given up (it is never answered).
    expect(t.received.every((x) => x.done === null)).toBe(true);
    await until(async () => t.received.length === 1 && t.received[0].done !== null, 60_000, "the attempt given up");
    await until(
      async () =>
        (await events("rt-fwd-hang"))[0].delivery.attempts === 1 &&
        (await suite.api("GET", `/v1/webhooks/rt-fwd-hang/events/${r.json.id}/attempts`)).json.items[0].outcome !== null,
      30_000,
      "recorded",
    );
    const [a] = (await suite.api("GET", `/v1/webhooks/rt-fwd-hang/events/${r.json.id}/attempts`)).json.items;
    expect(a).toMatchObject({ n: 1, outcome: "timeout", status: null });
    expect((await events("rt-fwd-hang"))[0].delivery.state).toBe("pending"); // a retry is scheduled
  });

  it("two isolates (two wrangler dev on one database) and their crons racing the immediate attempts: no attempt sent twice", async () => {
    const second = await startWranglerDev({
      direct: true,
      vars: { DATABASE_URL: suite.db, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, DB_BUDGET_MS: SUITE_BUDGET_MS },
      readyTimeoutMs: 150_000,
    });
    try {
      let n = 0;
      const t = await target(() => ({ status: ++n % 3 === 0 ? 500 : 200, delayMs: 50 }));
      const secret = newSecret();
      await forwardTo(suite.api, "rt-fwd-race", secret, t, { retry_schedule_ms: [1_000, 1_000, 1_000, 1_000, 1_000] });
      const now = await dbNowS(suite.db);
      const workers = [suite.worker, second];
      // Each delivery sent to both isolates at once, with both crons fired throughout.
      const firing = setInterval(() => workers.forEach((w) => void cron(w).catch(() => undefined)), 500);
      try {
        await limited(60, 10, async (i) => {
          const body = { type: "t", data: { i } };
          await Promise.all(workers.map((w) => deliver(client(ownSocket(w), null), "rt-fwd-race", secret, `msg-${i}`, body, now)));
        });
      } finally {
        clearInterval(firing);
      }
      await cronUntil(async () => (await events("rt-fwd-race")).every((e) => e.delivery.state === "delivered"), 180_000, "all delivered", workers);
      const sent = t.received.map((r) => `${r.id}#${r.attempt}`);
      expect(sent.length - new Set(sent).size).toBe(0); // no attempt twice
      expect(t.maxConcurrentPerId).toBe(1); // never two deliveries of one event in flight
      expect(new Set(t.received.map((r) => r.id)).size).toBe(60);
      const [{ attempts }] = await sql<{ attempts: number }>(suite.db, "SELECT count(*)::int AS attempts FROM webhook_attempts WHERE source = 'rt-fwd-race'");
      expect(attempts).toBe(t.received.length);
    } finally {
      await second.stop();
    }
  });
});
