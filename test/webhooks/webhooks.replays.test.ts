// What each scheme can promise against a replayed delivery (docs/webhooks.md, "Replays"), over real
// HTTP against real Postgres, signed by the senders' own libraries (senders.ts): Shopify deduplicated
// on X-Shopify-Event-Id (and events stored under X-Shopify-Webhook-Id before still recognised); GitHub
// and Shopify, which sign no id, recognising a captured delivery replayed with a fresh id by its signed
// bytes within replay_window_s; hmac sources refused unless their id is signed, their replays are
// otherwise bounded, or their owner accepts it in so many words.
import { createHmac } from "node:crypto";
import { getHmac as shopifyHmac } from "@shopify/shopify-api/test-helpers";
import { describe, expect, it } from "vitest";
import { client, servedApp, sql } from "../support";
import { SENDERS } from "./senders";
import { dbNowS } from "./webhooks.support";

const suite = servedApp("webhooks_replays");
const anon = () => client(suite.server.url, null);
const post = (source: string, d: { body: string; headers: Record<string, string> }) => anon()("POST", `/v1/webhooks/${source}`, d.body, d.headers);
const stored = (source: string) =>
  sql<{ id: string; webhook_id: string }>(suite.db, "SELECT id, webhook_id FROM webhook_events WHERE source = $1 ORDER BY seq", [source]);

async function put(source: string, body: Record<string, unknown>, status = 201) {
  const res = await suite.api("PUT", `/v1/webhooks/sources/${source}`, body);
  expect(res.status, res.text).toBe(status);
  return res;
}

/** A Shopify webhook as Shopify sends it, signed with @shopify/shopify-api's own HMAC helper. */
function shopifyWebhook(secret: string, body: string, ids: { webhook: string; event?: string }) {
  return {
    body,
    headers: {
      "X-Shopify-Hmac-Sha256": shopifyHmac(body, secret),
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Shop-Domain": "acme.myshopify.com",
      "X-Shopify-API-Version": "2025-01",
      "X-Shopify-Webhook-Id": ids.webhook,
      ...(ids.event ? { "X-Shopify-Event-Id": ids.event } : {}),
    },
  };
}

describe("Shopify: one event is one X-Shopify-Event-Id", () => {
  it("two webhooks of one event (two X-Shopify-Webhook-Id, one X-Shopify-Event-Id) → stored once, under the event id; without an event id → keyed on the webhook id", async () => {
    const secret = SENDERS.shopify.newSecret();
    await put("shop-events", { scheme: "shopify", secret });
    const body = JSON.stringify({ id: 820982911946154500, name: "#1001" });
    const first = await post("shop-events", shopifyWebhook(secret, body, { webhook: "wh-a", event: "evt-1" }));
    expect(first.status, first.text).toBe(200);
    const second = await post("shop-events", shopifyWebhook(secret, body, { webhook: "wh-b", event: "evt-1" }));
    expect([second.status, second.json, second.headers.get("idempotent-replayed")]).toEqual([200, first.json, "true"]);
    const older = await post("shop-events", shopifyWebhook(secret, JSON.stringify({ id: 2 }), { webhook: "wh-c" }));
    expect(older.status).toBe(200);
    expect((await stored("shop-events")).map((e) => e.webhook_id)).toEqual(["evt-1", "wh-c"]);
  });

  it("an event stored under its X-Shopify-Webhook-Id (as deliveries were keyed before) is this delivery again when Shopify retries it", async () => {
    const secret = SENDERS.shopify.newSecret();
    await put("shop-legacy", { scheme: "shopify", secret });
    const [{ id }] = await sql<{ id: string }>(
      suite.db,
      "INSERT INTO webhook_events (source, webhook_id, event_type, payload) VALUES ('shop-legacy', 'wh-before', 'orders/create', '{\"id\":3}') RETURNING id",
    );
    const retry = await post("shop-legacy", shopifyWebhook(secret, JSON.stringify({ id: 3 }), { webhook: "wh-before", event: "evt-3" }));
    expect([retry.status, retry.json, retry.headers.get("idempotent-replayed")]).toEqual([200, { id, status: "received" }, "true"]);
    expect(await stored("shop-legacy")).toEqual([{ id, webhook_id: "wh-before" }]);
  });
});

describe("GitHub and Shopify sign no id: a replay with a fresh id is told by its signed bytes within replay_window_s", () => {
  const cases = [
    {
      scheme: "github" as const,
      replay: (d: { body: string; headers: Record<string, string> }, n: number) => ({ ...d, headers: { ...d.headers, "X-GitHub-Delivery": `fresh-${n}` } }),
    },
    {
      scheme: "shopify" as const,
      replay: (d: { body: string; headers: Record<string, string> }, n: number) => ({
        ...d,
        headers: { ...d.headers, "X-Shopify-Webhook-Id": `fresh-wh-${n}`, "X-Shopify-Event-Id": `fresh-evt-${n}` },
      }),
    },
  ];
  it.each(cases)(
    "$scheme: stored again without a window (what the scheme cannot promise); with one, the same event, even 10 replays at once",
    async ({ scheme, replay }) => {
      const sender = SENDERS[scheme];
      const secret = sender.newSecret();
      const now = await dbNowS(suite.db);
      const captured = await sender.deliver([secret], `${scheme}-orig`, "issues", { issue: { number: 7 } }, now);

      await put(`${scheme}-open`, { scheme, secret });
      expect((await post(`${scheme}-open`, captured)).status).toBe(200);
      expect((await post(`${scheme}-open`, replay(captured, 0))).headers.get("idempotent-replayed")).toBeNull();
      expect(await stored(`${scheme}-open`)).toHaveLength(2);

      const windowed = await put(`${scheme}-windowed`, { scheme, secret, replay_window_s: 86_400 });
      expect(windowed.json.replay_window_s).toBe(86_400);
      const first = await post(`${scheme}-windowed`, captured);
      expect(first.status).toBe(200);
      const replays = await Promise.all(Array.from({ length: 10 }, (_, i) => post(`${scheme}-windowed`, replay(captured, i + 1))));
      for (const r of replays) expect([r.status, r.json, r.headers.get("idempotent-replayed")]).toEqual([200, first.json, "true"]);
      // A different event (other bytes) with a fresh id is stored.
      expect((await post(`${scheme}-windowed`, await sender.deliver([secret], `${scheme}-next`, "issues", { issue: { number: 8 } }, now))).status).toBe(200);
      expect((await stored(`${scheme}-windowed`)).map((e) => e.id)).toEqual([first.json.id, expect.any(String)]);
    },
  );

  it("5 events, each replayed 10 times at once with fresh ids → 5 stored (serialised on their signed bytes)", async () => {
    const secret = SENDERS.github.newSecret();
    await put("github-storm", { scheme: "github", secret, replay_window_s: 3600 });
    const events = await Promise.all(Array.from({ length: 5 }, (_, i) => SENDERS.github.deliver([secret], `storm-${i}`, "push", { ref: `r${i}` }, 0)));
    const sends = events.flatMap((d, i) =>
      Array.from({ length: 10 }, (_, j) => ({ i, d: { ...d, headers: { ...d.headers, "X-GitHub-Delivery": `s-${i}-${j}` } } })),
    );
    const answers = await Promise.all(sends.map(({ d }) => post("github-storm", d)));
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(5);
    expect(await stored("github-storm")).toHaveLength(5);
  });

  it("replay_window_s only where the id is not signed: 422 naming it for stripe, slack and standard-webhooks", async () => {
    for (const scheme of ["stripe", "slack", "standard-webhooks"] as const) {
      const res = await suite.api("PUT", `/v1/webhooks/sources/window-${scheme}`, {
        ...SENDERS[scheme].settings,
        secret: SENDERS[scheme].newSecret(),
        replay_window_s: 60,
      });
      expect(res.status, scheme).toBe(422);
      expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(["replay_window_s"]);
    }
  });
});

describe("hmac: an id outside the signed bytes is refused unless replays are bounded otherwise or the owner accepts them", () => {
  const unsignedId = { header: "X-Sig", prefix: "sha256=", signed: "{timestamp}.{body}", timestamp_header: "X-Ts", id: { header: "X-Delivery" } };

  it("PUT → 422 naming hmac.id; the id in the body, signed as {id}, a window of twice the tolerance, or allow_unsigned_id → 201", async () => {
    const bad = await suite.api("PUT", "/v1/webhooks/sources/hmac-unsigned", { scheme: "hmac", secret: "generic-secret", hmac: unsignedId });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual([expect.objectContaining({ path: "hmac.id", message: expect.stringContaining("replayed with a fresh id") })]);
    const short = await suite.api("PUT", "/v1/webhooks/sources/hmac-unsigned", {
      scheme: "hmac",
      secret: "generic-secret",
      hmac: unsignedId,
      replay_window_s: 599,
    });
    expect(short.json.errors?.map((e: { path: string }) => e.path)).toEqual(["hmac.id"]);
    const noTs = { ...unsignedId, signed: "{body}", timestamp_header: null };
    expect(
      (await suite.api("PUT", "/v1/webhooks/sources/hmac-unsigned", { scheme: "hmac", secret: "generic-secret", hmac: noTs, replay_window_s: 3600 })).status,
    ).toBe(422);
    for (const [name, body] of [
      ["hmac-pointer", { hmac: { ...unsignedId, id: { pointer: "/id" } } }],
      ["hmac-signed-id", { hmac: { ...unsignedId, signed: "{timestamp}.{id}.{body}" } }],
      ["hmac-window", { hmac: unsignedId, replay_window_s: 600 }],
      ["hmac-accepted", { hmac: { ...noTs, allow_unsigned_id: true } }],
    ] as const) {
      const res = await put(name, { scheme: "hmac", secret: "generic-secret", ...body });
      expect(res.json.hmac.allow_unsigned_id, name).toBe(name === "hmac-accepted");
    }
  });

  it("timestamp_header without {timestamp} in signed → 422 naming hmac.signed (a timestamp outside the signature protects nothing)", async () => {
    const res = await suite.api("PUT", "/v1/webhooks/sources/hmac-ts", {
      scheme: "hmac",
      secret: "generic-secret",
      hmac: { ...unsignedId, signed: "{body}", allow_unsigned_id: true },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(["hmac.signed"]);
  });

  it("a timestamped source with a window: a replay with a fresh id → the same event; the sender's own retry (new timestamp, same id) → the same event; a stale one → 401", async () => {
    const secret = "generic-secret-2";
    await put("hmac-bounded", { scheme: "hmac", secret, hmac: unsignedId, replay_window_s: 600 });
    const now = await dbNowS(suite.db);
    const sign = (id: string, ts: number, body: string) => ({
      body,
      headers: { "X-Sig": `sha256=${createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex")}`, "X-Ts": String(ts), "X-Delivery": id },
    });
    const body = JSON.stringify({ order: 1 });
    const first = await post("hmac-bounded", sign("d-1", now, body));
    expect(first.status).toBe(200);
    const replayed = await post("hmac-bounded", sign("d-forged", now, body));
    expect([replayed.json, replayed.headers.get("idempotent-replayed")]).toEqual([first.json, "true"]);
    const retry = await post("hmac-bounded", sign("d-1", now + 5, body));
    expect([retry.json, retry.headers.get("idempotent-replayed")]).toEqual([first.json, "true"]);
    expect((await post("hmac-bounded", sign("d-late", now - 400, body))).status).toBe(401);
    expect((await stored("hmac-bounded")).map((e) => e.webhook_id)).toEqual(["d-1"]);
  });

  it("allow_unsigned_id: a replay with a fresh id is stored again, as the owner accepted", async () => {
    const secret = "generic-secret-3";
    await put("hmac-open", { scheme: "hmac", secret, hmac: { header: "X-Sig", id: { header: "X-Delivery" }, allow_unsigned_id: true } });
    const body = JSON.stringify({ order: 2 });
    const sig = createHmac("sha256", secret).update(body).digest("hex");
    for (const id of ["a", "b"]) expect((await post("hmac-open", { body, headers: { "X-Sig": sig, "X-Delivery": id } })).status).toBe(200);
    expect((await stored("hmac-open")).map((e) => e.webhook_id)).toEqual(["a", "b"]);
  });
});
