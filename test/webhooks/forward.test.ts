// Forwarding through the app served in Node over real Postgres, to a real HTTP target on loopback:
// the source's forward settings (validation, audit, never the secret), retries on the schedule
// with the attempts listed, Retry-After, 410, the dead letter and redelivery, the metrics. The cron
// is the same function the Worker's scheduled handler runs (forwardDue). The workerd suite
// (forward.runtime.test.ts) repeats the must-show cases in the Workers runtime.
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { forwardDue } from "../../functions/webhooks";
import { bindings, client, SUITE_BUDGET_MS, servedApp, sql, until } from "../support";
import { deliver, forwardTo, startTarget, type Target } from "./forward.support";
import { dbNowS, newSecret } from "./webhooks.support";

const suite = servedApp("webhooks_forward");
const env = () => bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});
async function target(...args: Parameters<typeof startTarget>) {
  const t = await startTarget(...args);
  targets.push(t);
  return t;
}
const attempts = async (source: string, id: string) => (await suite.api("GET", `/v1/webhooks/${source}/events/${id}/attempts`)).json;
/** One cron run of `ms`, then whether `check` holds. */
const cronThen = async (ms: number, check: () => Promise<boolean> | boolean) => {
  await forwardDue(env(), ms);
  return check();
};
const event = async (source: string, id: string) =>
  (await suite.api("GET", `/v1/webhooks/${source}/events?limit=1000`)).json.items.find((e: { id: string }) => e.id === id);

describe("a source's forward settings", () => {
  it("are validated: http only on loopback, one of url and binding, a bound Worker, ordered needs ordering_key, a whsec_ secret", async () => {
    const secret = newSecret();
    const fwd = { secret: newSecret() };
    const put = (forward: unknown, extra: Record<string, unknown> = {}) => suite.api("PUT", "/v1/webhooks/sources/fwd-valid", { secret, ...extra, forward });
    const paths = async (forward: unknown, extra?: Record<string, unknown>) => {
      const r = await put(forward, extra);
      expect(r.status, r.text).toBe(422);
      return r.json.errors.map((e: { path: string }) => e.path);
    };
    expect(await paths({ ...fwd, url: "http://hooks.example.com/x" })).toEqual(["forward.url"]);
    expect(await paths({ ...fwd, url: "ftp://127.0.0.1/x" })).toEqual(["forward.url"]);
    expect(await paths({ ...fwd, url: "https://user:pw@hooks.example.com/x" })).toEqual(["forward.url"]);
    expect(await paths({ ...fwd })).toEqual(["forward.url"]);
    expect(await paths({ ...fwd, url: "https://a.example/x", binding: "B" })).toEqual(["forward.url"]);
    expect(await paths({ ...fwd, binding: "NOPE" })).toEqual(["forward.binding"]);
    expect(await paths({ ...fwd, url: "https://a.example/x", ordered: true })).toEqual(["forward.ordered"]);
    expect(await paths({ url: "https://a.example/x", secret: "whsec_short" })).toEqual(["forward.secret"]);
    expect(await paths({ ...fwd, url: "https://a.example/x", timeout_ms: 60_000 })).toEqual(["forward.timeout_ms"]);
    expect(await paths({ ...fwd, url: "https://a.example/x", retry_schedule_ms: [10] })).toEqual(["forward.retry_schedule_ms.0"]);
    for (const url of ["http://127.0.0.1:9/x", "http://localhost:9/x", "http://[::1]:9/x", "https://hooks.example.com/x"]) {
      expect((await put({ ...fwd, url })).status).toBeLessThan(300);
    }
    const got = await suite.api("GET", "/v1/webhooks/sources/fwd-valid");
    expect(got.json.forward).toEqual({
      url: "https://hooks.example.com/x",
      timeout_ms: 10_000,
      retry_schedule_ms: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      ordered: false,
      previous_secret_expires_at: null,
      stopped_at: null,
      stopped_reason: null,
    });
    expect(got.text).not.toContain(fwd.secret);
    const audit = await sql<{ change: string }>(suite.db, "SELECT change::text AS change FROM admit_audit WHERE target = 'fwd-valid'");
    expect(audit.length).toBeGreaterThan(0);
    for (const a of audit) expect(a.change).not.toContain(fwd.secret.slice(6));
    // Without forward the source is a pull source again.
    expect((await suite.api("PUT", "/v1/webhooks/sources/fwd-valid", { secret })).json.forward).toBeNull();
  });
});

describe("the forward secret", () => {
  it("rotates with an overlap: both secrets sign until the previous one is retired, so a target holding either verifies", async () => {
    const t = await target(() => ({ status: 200 }));
    const [a, b] = [t.secret, newSecret()];
    const secret = newSecret();
    const anon = client(suite.server.url, null);
    const now = await dbNowS(suite.db);
    const verifies = (key: string, n: number) => {
      const r = t.received[n];
      try {
        new Webhook(key).verify(r.body, { "webhook-id": r.id, "webhook-timestamp": r.timestamp, "webhook-signature": r.signature });
        return true;
      } catch {
        return false;
      }
    };
    const send = async (n: number) => {
      expect((await deliver(anon, "fwd-rotate", secret, `msg-rot-${n}`, { type: "a" }, now)).status).toBe(200);
      await until(async () => t.received.length > n && t.received[n].done !== null, 30_000, `attempt ${n}`);
    };
    await forwardTo(suite.api, "fwd-rotate", secret, t);
    await send(0);
    expect([verifies(a, 0), verifies(b, 0)]).toEqual([true, false]);
    const rotated = await suite.api("PUT", "/v1/webhooks/sources/fwd-rotate", {
      secret,
      forward: { url: t.url, secret: b, previous_secret_ttl_ms: 3_600_000 },
    });
    expect(rotated.json.forward.previous_secret_expires_at).toEqual(expect.any(String));
    await send(1);
    expect(t.received[1].signature.split(" ")).toHaveLength(2);
    expect([verifies(a, 1), verifies(b, 1)]).toEqual([true, true]);
    const retired = await suite.api("PUT", "/v1/webhooks/sources/fwd-rotate", { secret, forward: { url: t.url, secret: b, previous_secret_ttl_ms: 0 } });
    expect(retired.json.forward.previous_secret_expires_at).toBeNull();
    await send(2);
    expect([verifies(a, 2), verifies(b, 2)]).toEqual([false, true]);
    for (const r of [rotated, retired]) expect(r.text).not.toContain(b);
    // A previous secret past its overlap is cleared by the cron's sweeper (and no longer signs meanwhile).
    await suite.api("PUT", "/v1/webhooks/sources/fwd-rotate", { secret, forward: { url: t.url, secret: a, previous_secret_ttl_ms: 3_600_000 } });
    await sql(suite.db, "UPDATE webhook_sources SET forward_previous_secret_expires_at = now() - interval '1 second' WHERE source = 'fwd-rotate'");
    expect((await suite.api("GET", "/v1/webhooks/sources/fwd-rotate")).json.forward.previous_secret_expires_at).toBeNull();
    await send(3);
    expect([verifies(a, 3), verifies(b, 3)]).toEqual([true, false]);
    expect(await sql(suite.db, "SELECT admit_sweep_webhook_forward_secrets() AS n")).toEqual([{ n: 1 }]);
    expect(await sql(suite.db, "SELECT forward_previous_secret FROM webhook_sources WHERE source = 'fwd-rotate'")).toEqual([{ forward_previous_secret: null }]);
  });
});

describe("delivery", () => {
  it("a target answering 500, 500, then 200: three attempts listed, delivered once, each signed for the target's secret", async () => {
    const t = await target((_r, nth) => ({ status: nth < 2 ? 500 : 200 }));
    const secret = newSecret();
    await forwardTo(suite.api, "fwd-retry", secret, t, { retry_schedule_ms: [1_000, 1_000, 1_000] });
    const anon = client(suite.server.url, null);
    const r = await deliver(anon, "fwd-retry", secret, "msg-retry-1", { type: "a" }, await dbNowS(suite.db));
    expect(r.status).toBe(200);
    const id = r.json.id;
    await until(async () => t.received.length >= 1, 30_000, "the first attempt");
    // The retries are the cron's: run it until the event is delivered.
    await until(() => cronThen(3_000, async () => (await event("fwd-retry", id)).delivery.state === "delivered"), 60_000, "delivered");
    expect(t.received.map((x) => [x.id, x.verified])).toEqual([
      [id, true],
      [id, true],
      [id, true],
    ]);
    expect(t.received.map((x) => x.attempt)).toEqual(["1", "2", "3"]);
    const list = await attempts("fwd-retry", id);
    expect(list.items.map((a: { n: number; status: number; outcome: string; trigger: string }) => [a.n, a.status, a.outcome, a.trigger])).toEqual([
      [1, 500, "failed", "received"],
      [2, 500, "failed", "schedule"],
      [3, 200, "delivered", "schedule"],
    ]);
    expect(list.items[0].response).toBe(`answer 500 to ${id}`);
    expect(list.items.every((a: { latency_ms: number }) => Number.isInteger(a.latency_ms))).toBe(true);
    const e = await event("fwd-retry", id);
    expect(e).toMatchObject({ status: "processed", delivery: { state: "delivered", attempts: 3, in_flight: false } });
    // Delivered: never sent again, by a cron run or anything else.
    await forwardDue(env(), 1_500);
    expect(t.received).toHaveLength(3);
    // Forwarded events are not handed to pull consumers.
    expect((await suite.api("POST", "/v1/webhooks/fwd-retry/events/claim", {})).json.events).toEqual([]);
  });

  it("Retry-After from the target is honoured over a shorter schedule", async () => {
    const t = await target((_r, nth) => (nth === 0 ? { status: 503, headers: { "retry-after": "120" } } : { status: 200 }));
    const secret = newSecret();
    await forwardTo(suite.api, "fwd-retry-after", secret, t, { retry_schedule_ms: [1_000] });
    const r = await deliver(client(suite.server.url, null), "fwd-retry-after", secret, "msg-ra", { type: "a" }, await dbNowS(suite.db));
    await until(async () => (await attempts("fwd-retry-after", r.json.id)).items[0]?.outcome === "failed", 30_000, "the first attempt recorded");
    const [{ wait_s }] = await sql<{ wait_s: number }>(
      suite.db,
      "SELECT extract(epoch FROM next_attempt_at - now())::float AS wait_s FROM webhook_events WHERE id = $1",
      [r.json.id],
    );
    expect(wait_s).toBeGreaterThan(100);
    expect((await attempts("fwd-retry-after", r.json.id)).items[0]).toMatchObject({ status: 503, retry_after_ms: 120_000 });
  });

  it("410 stops the source's forwarding and says so; a PUT resumes it", async () => {
    let gone = true;
    const t = await target(() => ({ status: gone ? 410 : 200 }));
    const secret = newSecret();
    await forwardTo(suite.api, "fwd-gone", secret, t, { retry_schedule_ms: [1_000] });
    const anon = client(suite.server.url, null);
    const now = await dbNowS(suite.db);
    const first = await deliver(anon, "fwd-gone", secret, "msg-gone-1", { type: "a" }, now);
    await until(async () => (await suite.api("GET", "/v1/webhooks/sources/fwd-gone")).json.forward.stopped_at !== null, 30_000, "stopped");
    const src = (await suite.api("GET", "/v1/webhooks/sources/fwd-gone")).json;
    expect(src.forward.stopped_reason).toMatch(/410/);
    const second = await deliver(anon, "fwd-gone", secret, "msg-gone-2", { type: "a" }, now);
    expect(second.status).toBe(200);
    await forwardDue(env(), 1_500);
    expect(t.received).toHaveLength(1); // nothing sent while stopped
    gone = false;
    await forwardTo(suite.api, "fwd-gone", secret, t, { retry_schedule_ms: [1_000] });
    await until(() => cronThen(2_000, () => t.received.length >= 3), 60_000, "both delivered after the PUT");
    expect(new Set(t.received.slice(1).map((x) => x.id))).toEqual(new Set([first.json.id, second.json.id]));
  });

  it("a target down for longer than the schedule: failed, in /metrics; redelivered after it is back → delivered; bulk redelivery of a time range", async () => {
    let up = false;
    const t = await target(() => ({ status: up ? 200 : 502 }));
    const secret = newSecret();
    await forwardTo(suite.api, "fwd-down", secret, t, { retry_schedule_ms: [1_000] });
    const anon = client(suite.server.url, null);
    const now = await dbNowS(suite.db);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await deliver(anon, "fwd-down", secret, `msg-down-${n}`, { type: "a" }, now)).json.id);
    await until(
      () => cronThen(2_000, async () => (await suite.api("GET", "/v1/webhooks/fwd-down/events?status=failed")).json.items.length === 3),
      60_000,
      "all three failed",
    );
    const metrics = (await suite.api("GET", "/metrics")).text;
    expect(metrics).toMatch(/admit_webhook_forward_failed\{source="fwd-down"\} 3/);
    up = true;
    const one = await suite.api("POST", `/v1/webhooks/fwd-down/events/${ids[0]}/redeliver`);
    expect(one.status, one.text).toBe(202);
    expect(one.json.delivery.state).toBe("pending");
    await until(async () => (await event("fwd-down", ids[0])).delivery.state === "delivered", 30_000, "redelivered");
    const bulk = await suite.api("POST", "/v1/webhooks/fwd-down/events/redeliver", { since: "2000-01-01T00:00:00Z", until: "2100-01-01T00:00:00Z" });
    expect(bulk.status, bulk.text).toBe(202);
    expect(bulk.json).toEqual({ redelivered: 2, more: false });
    await until(async () => (await suite.api("GET", "/v1/webhooks/fwd-down/events?status=failed")).json.items.length === 0, 30_000, "bulk redelivered");
    const states = async () =>
      (await suite.api("GET", "/v1/webhooks/fwd-down/events")).json.items.map((e: { delivery: { state: string } }) => e.delivery.state);
    await until(async () => (await states()).every((s: string) => s === "delivered"), 30_000, "all three delivered");
    // 3 × 2 attempts while down (the first and one retry), then one each after it came back.
    expect(t.received).toHaveLength(9);
    expect(new Set(t.received.slice(6).map((x) => x.id))).toEqual(new Set(ids));
    const actions = await sql<{ action: string }>(suite.db, "SELECT action FROM admit_audit WHERE target = 'fwd-down' ORDER BY id");
    expect(actions.map((a) => a.action)).toEqual(["webhooks.source.put", "webhooks.event.redeliver", "webhooks.events.redeliver"]);
    expect((await suite.api("GET", "/metrics")).text).toMatch(/admit_webhook_forward_attempts_total\{outcome="delivered",source="fwd-down"\} 3/);
  });

  it("removing forward makes the source a pull source again, its undelivered events claimable", async () => {
    const t = await target(() => ({ status: 500 }));
    const secret = newSecret();
    await forwardTo(suite.api, "fwd-off", secret, t, { retry_schedule_ms: [] });
    const anon = client(suite.server.url, null);
    const now = await dbNowS(suite.db);
    const failed = (await deliver(anon, "fwd-off", secret, "msg-off-1", { type: "a" }, now)).json.id;
    await until(async () => (await event("fwd-off", failed)).delivery.state === "failed", 30_000, "failed");
    expect((await suite.api("POST", "/v1/webhooks/fwd-off/events/claim", {})).json.events).toEqual([]);
    expect((await suite.api("PUT", "/v1/webhooks/sources/fwd-off", { secret })).json.forward).toBeNull();
    const later = (await deliver(anon, "fwd-off", secret, "msg-off-2", { type: "a" }, now)).json.id;
    const claimed = (await suite.api("POST", "/v1/webhooks/fwd-off/events/claim", {})).json.events.map((e: { id: string }) => e.id);
    expect(claimed).toEqual([failed, later]);
    expect((await event("fwd-off", later)).delivery).toBeNull();
    expect(t.received).toHaveLength(1);
  });
});
