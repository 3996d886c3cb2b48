// Every sender scheme over HTTP against real Postgres, with deliveries signed by the senders' own
// libraries (test/webhooks/senders.ts): accepted and stored once with the sender's id and event type;
// a flipped byte, a wrong secret, a stale or future timestamp and a missing header each refused with a
// 401 that names what was wrong and reveals no expected signature; rotation with two secrets; the
// handshakes (Slack url_verification, GitHub ping); and the source settings each scheme takes.
import { createHmac } from "node:crypto";
import { request } from "node:http";
import { verify as githubVerify } from "@octokit/webhooks-methods";
import { verifySlackRequest } from "@slack/bolt";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { NOT_VERIFIED_DETAIL } from "../../functions/webhooks/handlers";
import { client, servedApp, sql } from "../support";
import { HMAC_SETTINGS, SCHEMES, type SchemeName, SENDERS, senderId, slackSignature } from "./senders";
import { dbNowS } from "./webhooks.support";

const suite = servedApp("webhooks_schemes");
const anon = () => client(suite.server.url, null);

let n = 0;
async function register(scheme: SchemeName, secret: string, extra: Record<string, unknown> = {}) {
  const source = `${scheme}-${++n}`;
  const res = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...SENDERS[scheme].settings, secret, ...extra });
  expect(res.status, res.text).toBe(201);
  return source;
}

/** A POST on a connection of its own (no keep-alive pool), for a body the server refuses before reading it all. */
function unpooledPost(url: string, d: { body: string; headers: Record<string, string> }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent: false, headers: { ...d.headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(d.body) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(d.body);
  });
}

const post = (source: string, d: { body: string; headers: Record<string, string> }) => anon()("POST", `/v1/webhooks/${source}`, d.body, d.headers);
const stored = (source: string) =>
  sql<{ webhook_id: string; event_type: string | null; ts: boolean }>(
    suite.db,
    "SELECT webhook_id, event_type, webhook_timestamp IS NOT NULL AS ts FROM webhook_events WHERE source = $1 ORDER BY seq",
    [source],
  );

describe("each sender's own library verifies what the test sender makes (so the tests sign as the senders do)", () => {
  it("stripe constructEvent, octokit verify, bolt verifySlackRequest, standardwebhooks verify, and the documented HMACs", async () => {
    const ts = Math.floor(Date.now() / 1000);
    const s = SENDERS.stripe.newSecret();
    const st = await SENDERS.stripe.deliver([s], "evt_1", "invoice.paid", { id: "in_1" }, ts);
    expect(Stripe.webhooks.constructEvent(st.body, st.headers["Stripe-Signature"], s).id).toBe("evt_1");
    const g = SENDERS.github.newSecret();
    const gh = await SENDERS.github.deliver([g], "d-1", "issues", {}, ts);
    expect(await githubVerify(g, gh.body, gh.headers["X-Hub-Signature-256"])).toBe(true);
    // The synchronous signer the fuzz and fault suites use makes the library's signature.
    expect(SENDERS.github.sign([g], "d-1", "issues", {}, ts)).toEqual(gh);
    const sl = SENDERS.slack.newSecret();
    const sk = await SENDERS.slack.deliver([sl], "Ev1", "app_mention", {}, ts);
    expect(() =>
      verifySlackRequest({
        signingSecret: sl,
        body: sk.body,
        headers: { "x-slack-signature": sk.headers["X-Slack-Signature"], "x-slack-request-timestamp": ts },
      }),
    ).not.toThrow();
    const w = SENDERS["standard-webhooks"].newSecret();
    const sw = await SENDERS["standard-webhooks"].deliver([w], "msg_1", "invoice.paid", {}, ts);
    expect(() => new Webhook(w).verify(sw.body, sw.headers)).not.toThrow();
    const sh = SENDERS.shopify.newSecret();
    const sp = await SENDERS.shopify.deliver([sh], "w-1", "orders/create", {}, ts);
    expect(sp.headers["X-Shopify-Hmac-Sha256"]).toBe(createHmac("sha256", sh).update(sp.body).digest("base64"));
  });
});

describe.each(SCHEMES.map((s) => [s] as const))("%s", (scheme) => {
  const sender = SENDERS[scheme];

  it("a delivery signed by the sender → 200, stored once with the sender's id and event type; the redelivery → the same answer, Idempotent-Replayed", async () => {
    const secret = sender.newSecret();
    const source = await register(scheme, secret);
    const id = senderId(scheme, 1);
    const now = await dbNowS(suite.db);
    const first = await post(source, await sender.deliver([secret], id, "thing.created", { n: 1 }, now));
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ id: expect.any(String), status: "received" });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // A retry is signed anew (a later timestamp where the scheme signs one): still the same event.
    const again = await post(source, await sender.deliver([secret], id, "thing.created", { n: 1 }, now + 2));
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await stored(source)).toEqual([{ webhook_id: id, event_type: "thing.created", ts: sender.timestamped }]);
    const claimed = await suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 5 });
    expect(claimed.json.events).toEqual([expect.objectContaining({ id: first.json.id, webhook_id: id, event_type: "thing.created" })]);
  });

  it("a flipped byte, a wrong secret, a stale and a future timestamp, a missing header → 401, the owner's GET naming what was wrong, no expected signature shown, nothing stored", async () => {
    const secret = sender.newSecret();
    const source = await register(scheme, secret);
    const now = await dbNowS(suite.db);
    const good = await sender.deliver([secret], senderId(scheme, 2), "thing.created", { n: 2 }, now);
    // One byte of the body flipped (an ASCII letter, so the body is still the same length of text).
    const at = good.body.indexOf("thing.created") + 2;
    const flipped = good.body.slice(0, at) + String.fromCharCode(good.body.charCodeAt(at) ^ 1) + good.body.slice(at + 1);
    const cases: Array<[string, { body: string; headers: Record<string, string> }, string]> = [
      ["flipped byte", { body: flipped, headers: good.headers }, "signature-mismatch"],
      ["wrong secret", await sender.deliver([sender.newSecret()], senderId(scheme, 3), "thing.created", {}, now), "signature-mismatch"],
      [
        "missing signature header",
        { body: good.body, headers: Object.fromEntries(Object.entries(good.headers).filter(([k]) => k !== sender.signatureHeader)) },
        "missing-header",
      ],
    ];
    if (sender.timestamped) {
      cases.push(["10 minutes old", await sender.deliver([secret], senderId(scheme, 4), "thing.created", {}, now - 600), "timestamp-outside-tolerance"]);
      cases.push(["10 minutes ahead", await sender.deliver([secret], senderId(scheme, 5), "thing.created", {}, now + 600), "timestamp-outside-tolerance"]);
    }
    for (const [label, delivery, reason] of cases) {
      const res = await post(source, delivery);
      expect(res.status, `${label}: ${res.text}`).toBe(401);
      expect(res.headers.get("content-type"), label).toBe("application/problem+json");
      // The sender is told nothing of why (webhooks.refusals.test.ts: every refusal is one answer) …
      expect(res.json, label).toEqual({ type: "/problems/webhook-signature", title: "Webhook not verified", status: 401, detail: NOT_VERIFIED_DETAIL });
      // … the source's owner is.
      const owner = await suite.api("GET", `/v1/webhooks/sources/${source}`);
      const [latest] = owner.json.recent_rejections;
      expect(latest, label).toMatchObject({ reason });
      expect(latest.detail, label).toMatch(/\.$/);
      if (reason === "missing-header")
        expect([latest.header, latest.detail], label).toEqual([sender.signatureHeader, expect.stringContaining(sender.signatureHeader)]);
      if (reason === "signature-mismatch") expect(latest.detail, label).toContain(sender.signatureHeader);
      if (reason === "timestamp-outside-tolerance") {
        // How far off, as the database clock saw it when the delivery arrived (a few seconds after it was signed, on a busy machine).
        const [, skew, when] = /(\d+) s (old|in the future); this source accepts ±300 s\.$/.exec(latest.detail) ?? [];
        expect([when, Math.abs(Number(skew) - 600) <= 30], label).toEqual([label.endsWith("old") ? "old" : "in the future", true]);
      }
      // Nothing the receiver computed is in the answer nor in the owner's view: no signature (hex or
      // base64 of any HMAC of the content under the real secret) and no part of the secret.
      for (const text of [res.text, owner.text]) {
        for (const alg of ["sha256", "sha1"]) {
          const mac = createHmac(alg, secret).update(delivery.body);
          const d = mac.digest();
          expect(text, label).not.toContain(d.toString("hex").slice(0, 16));
          expect(text, label).not.toContain(d.toString("base64").slice(0, 16));
        }
        expect(text, label).not.toContain(secret.slice(-12));
      }
    }
    expect(await stored(source)).toEqual([]);
  });

  it("rotation: with previous_secret_ttl_ms both secrets verify until the previous one is retired", async () => {
    const oldSecret = sender.newSecret();
    const newSecret = sender.newSecret();
    const source = await register(scheme, oldSecret);
    const now = await dbNowS(suite.db);
    const put = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret: newSecret, previous_secret_ttl_ms: 3_600_000 });
    expect(put.status).toBe(200);
    expect(Date.parse(put.json.previous_secret_expires_at) - now * 1000).toBeGreaterThan(3_500_000);
    expect(put.text).not.toContain(oldSecret.slice(-12));
    // Deliveries still signed with the old secret (in flight, or a sender not yet switched), and with the new one.
    expect((await post(source, await sender.deliver([oldSecret], senderId(scheme, 10), "a", {}, now))).status).toBe(200);
    expect((await post(source, await sender.deliver([newSecret], senderId(scheme, 11), "a", {}, now))).status).toBe(200);
    // The same secret again without a TTL leaves the rotation as it is; with 0 the previous secret is retired.
    const same = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret: newSecret });
    expect(same.json.previous_secret_expires_at).toBe(put.json.previous_secret_expires_at);
    const retired = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret: newSecret, previous_secret_ttl_ms: 0 });
    expect(retired.json.previous_secret_expires_at).toBeNull();
    const late = await post(source, await sender.deliver([oldSecret], senderId(scheme, 12), "a", {}, now));
    expect(late.status).toBe(401);
    expect((await suite.api("GET", `/v1/webhooks/sources/${source}`)).json.recent_rejections[0].reason).toBe("signature-mismatch");
    expect((await post(source, await sender.deliver([newSecret], senderId(scheme, 13), "a", {}, now))).status).toBe(200);
    expect((await stored(source)).length).toBe(3);
    expect(await sql(suite.db, "SELECT previous_secret FROM webhook_sources WHERE source = $1", [source])).toEqual([{ previous_secret: null }]);
  });
});

describe("rotation details", () => {
  it("Stripe and Standard Webhooks send one signature per live secret during a roll: either secret registered here verifies", async () => {
    for (const scheme of ["stripe", "standard-webhooks"] as const) {
      const sender = SENDERS[scheme];
      const [a, b] = [sender.newSecret(), sender.newSecret()];
      const source = await register(scheme, a);
      const now = await dbNowS(suite.db);
      expect((await post(source, await sender.deliver([b, a], senderId(scheme, 20), "x", {}, now))).status, scheme).toBe(200);
      await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret: b });
      expect((await post(source, await sender.deliver([a, b], senderId(scheme, 21), "x", {}, now))).status, scheme).toBe(200);
      expect((await post(source, await sender.deliver([a], senderId(scheme, 22), "x", {}, now))).status, scheme).toBe(401);
    }
  });

  it("a previous secret past its time is not accepted, and the sweep clears it", async () => {
    const [a, b] = [SENDERS.github.newSecret(), SENDERS.github.newSecret()];
    const source = await register("github", a);
    await suite.api("PUT", `/v1/webhooks/sources/${source}`, { scheme: "github", secret: b, previous_secret_ttl_ms: 60_000 });
    await sql(suite.db, "UPDATE webhook_sources SET previous_secret_expires_at = now() - interval '1 second' WHERE source = $1", [source]);
    expect((await suite.api("GET", `/v1/webhooks/sources/${source}`)).json.previous_secret_expires_at).toBeNull();
    expect((await post(source, await SENDERS.github.deliver([a], senderId("github", 30), "x", {}, 0))).status).toBe(401);
    const [{ report }] = await sql<{ report: Record<string, number> }>(suite.db, "SELECT admit_sweep() AS report");
    expect(report.webhook_secrets).toBeGreaterThanOrEqual(1);
    expect(await sql(suite.db, "SELECT previous_secret FROM webhook_sources WHERE source = $1", [source])).toEqual([{ previous_secret: null }]);
  });
});

describe("handshakes", () => {
  it("Slack url_verification, signed, is answered with its challenge and not stored; unsigned → 401", async () => {
    const secret = SENDERS.slack.newSecret();
    const source = await register("slack", secret);
    const ts = await dbNowS(suite.db);
    const body = JSON.stringify({
      token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    const res = await anon()("POST", `/v1/webhooks/${source}`, body, {
      "X-Slack-Signature": slackSignature(secret, ts, body),
      "X-Slack-Request-Timestamp": String(ts),
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    const forged = await anon()("POST", `/v1/webhooks/${source}`, body, {
      "X-Slack-Signature": slackSignature("another-secret", ts, body),
      "X-Slack-Request-Timestamp": String(ts),
    });
    expect(forged.status).toBe(401);
    expect(await stored(source)).toEqual([]);
  });

  it("GitHub ping, signed, is acknowledged and not stored; a wrong secret shows at set-up as a 401", async () => {
    const secret = SENDERS.github.newSecret();
    const source = await register("github", secret);
    const ping = await SENDERS.github.deliver([secret], "6a6b4e3a-0000-4000-8000-000000000001", "ping", { zen: "Keep it logically awesome.", hook_id: 1 }, 0);
    const res = await post(source, ping);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "acknowledged", event_type: "ping", stored: false });
    expect((await post(source, await SENDERS.github.deliver([SENDERS.github.newSecret()], "x-2", "ping", {}, 0))).status).toBe(401);
    expect(await stored(source)).toEqual([]);
  });

  it("Slack retries (X-Slack-Retry-Num) of one event_id are one event; app_rate_limited notices are stored once per app and minute", async () => {
    const secret = SENDERS.slack.newSecret();
    const source = await register("slack", secret);
    const ts = await dbNowS(suite.db);
    const first = await SENDERS.slack.deliver([secret], "Ev0RETRY", "message", {}, ts);
    expect((await post(source, first)).status).toBe(200);
    const retry = await SENDERS.slack.deliver([secret], "Ev0RETRY", "message", {}, ts + 60);
    const r = await post(source, { body: retry.body, headers: { ...retry.headers, "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout" } });
    expect(r.headers.get("idempotent-replayed")).toBe("true");
    const body = JSON.stringify({ token: "t", type: "app_rate_limited", team_id: "T1", minute_rate_limited: 1518467820, api_app_id: "A1" });
    const limited = { body, headers: { "X-Slack-Signature": slackSignature(secret, ts, body), "X-Slack-Request-Timestamp": String(ts) } };
    expect((await post(source, limited)).status).toBe(200);
    expect((await post(source, limited)).headers.get("idempotent-replayed")).toBe("true");
    expect(await stored(source)).toEqual([
      { webhook_id: "Ev0RETRY", event_type: "message", ts: true },
      { webhook_id: "app_rate_limited:A1:1518467820", event_type: "app_rate_limited", ts: true },
    ]);
  });
});

describe("what each scheme takes and refuses", () => {
  it("Shopify's newer header names (shopify-hmac-sha256, shopify-event-id, shopify-webhook-id, shopify-topic) are read too", async () => {
    const secret = SENDERS.shopify.newSecret();
    const source = await register("shopify", secret);
    const body = JSON.stringify({ id: 1 });
    const res = await anon()("POST", `/v1/webhooks/${source}`, body, {
      "shopify-hmac-sha256": createHmac("sha256", secret).update(body).digest("base64"),
      "shopify-webhook-id": "new-style-1",
      "shopify-topic": "orders/paid",
      "shopify-event-id": "e-1",
    });
    expect(res.status, res.text).toBe(200);
    expect(await stored(source)).toEqual([{ webhook_id: "e-1", event_type: "orders/paid", ts: false }]);
  });

  it("a generic hmac source: SHA-1 in base64 over the body, id and type from JSON pointers, no timestamp", async () => {
    const secret = "a-generic-secret-1";
    const hmac = { header: "X-Sig", algorithm: "sha1", encoding: "base64", id: { pointer: "/meta/id" }, event_type: { pointer: "/kind" } };
    const source = await register("hmac", secret, { hmac });
    const got = await suite.api("GET", `/v1/webhooks/sources/${source}`);
    expect(got.json).toMatchObject({ scheme: "hmac", tolerance_s: null, hmac: { ...hmac, prefix: "", signed: "{body}", timestamp_header: null } });
    const body = JSON.stringify({ kind: "order.shipped", meta: { id: 42 } });
    const sig = createHmac("sha1", secret).update(body).digest("base64");
    expect((await anon()("POST", `/v1/webhooks/${source}`, body, { "X-Sig": sig })).status).toBe(200);
    expect((await anon()("POST", `/v1/webhooks/${source}`, body, { "X-Sig": sig })).headers.get("idempotent-replayed")).toBe("true");
    const noId = JSON.stringify({ kind: "x" });
    const missing = await anon()("POST", `/v1/webhooks/${source}`, noId, { "X-Sig": createHmac("sha1", secret).update(noId).digest("base64") });
    expect(missing.status).toBe(400);
    expect(missing.json.detail).toContain("/meta/id");
    expect(await stored(source)).toEqual([{ webhook_id: "42", event_type: "order.shipped", ts: false }]);
  });

  it("a Stripe event without an id → 400 naming it; a sender id too long to store as itself is stored as its digest", async () => {
    const secret = SENDERS.stripe.newSecret();
    const source = await register("stripe", secret);
    const ts = await dbNowS(suite.db);
    const sign = (body: string) => ({
      body,
      headers: { "Stripe-Signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: ts }) },
    });
    const noId = await post(source, sign(JSON.stringify({ type: "x" })));
    expect(noId.status).toBe(400);
    expect(noId.json.detail).toContain('"id"');
    const long = `evt_${"x".repeat(300)}`;
    expect((await post(source, sign(JSON.stringify({ id: long, type: "x" })))).status).toBe(200);
    expect((await post(source, sign(JSON.stringify({ id: long, type: "x", again: true })))).headers.get("idempotent-replayed")).toBe("true");
    expect((await stored(source)).map((r) => r.webhook_id)).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
  });

  it("a delivery may be up to 1 MiB (a large GitHub push is stored); over it → 413, nothing stored; other routes keep 64 KiB", async () => {
    const secret = SENDERS.github.newSecret();
    const source = await register("github", secret);
    const commits = Array.from({ length: 400 }, (_, i) => ({ id: `${i}`.padStart(40, "0"), message: "x".repeat(600) }));
    const big = await SENDERS.github.deliver([secret], "big-push-1", "push", { commits }, 0);
    expect(big.body.length).toBeGreaterThan(200 * 1024);
    const res = await post(source, big);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    const put = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { scheme: "github", secret, pad: "z".repeat(70 * 1024) });
    expect(put.status).toBe(413);
    const claimed = await suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 1 });
    expect(claimed.json.events[0].payload.commits).toHaveLength(400);
    // Over 1 MiB, on a connection of its own (the server closes it without reading the rest of the body).
    const huge = await SENDERS.github.deliver([secret], "huge-push-1", "push", { pad: "y".repeat(1024 * 1024) }, 0);
    const refused = await unpooledPost(`${suite.server.url}/v1/webhooks/${source}`, huge);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text).detail).toContain(String(1024 * 1024));
    expect(await stored(source)).toEqual([{ webhook_id: "big-push-1", event_type: "push", ts: false }]);
  });

  it("PUT refuses settings that do not fit the scheme with 422 naming the field, never echoing the secret", async () => {
    const bad = async (body: Record<string, unknown>, path: string) => {
      const res = await suite.api("PUT", `/v1/webhooks/sources/bad-${++n}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
      if (typeof body.secret === "string") expect(res.text).not.toContain(body.secret);
      return res;
    };
    const apiKey = await bad({ scheme: "stripe", secret: "sk_live_51Habcdefghijklmnop" }, "secret");
    expect(apiKey.json.errors[0].message).toContain("API key");
    await bad({ scheme: "stripe", secret: "not-a-whsec-secret" }, "secret");
    await bad({ scheme: "github", secret: "short" }, "secret");
    await bad({ scheme: "github", secret: SENDERS.github.newSecret(), tolerance_s: 300 }, "tolerance_s");
    await bad({ scheme: "shopify", secret: SENDERS.shopify.newSecret(), hmac: HMAC_SETTINGS }, "hmac");
    await bad({ scheme: "hmac", secret: "generic-secret" }, "hmac");
    await bad({ scheme: "hmac", secret: "generic-secret", hmac: { ...HMAC_SETTINGS, timestamp_header: null } }, "hmac.timestamp_header");
    await bad({ scheme: "hmac", secret: "generic-secret", hmac: { ...HMAC_SETTINGS, signed: "{timestamp}" } }, "hmac.signed");
    await bad({ scheme: "hmac", secret: "generic-secret", hmac: { ...HMAC_SETTINGS, header: "Bad Header" } }, "hmac.header");
    await bad({ scheme: "nope", secret: "generic-secret" }, "scheme");
    await bad({ scheme: "slack", secret: SENDERS.slack.newSecret(), previous_secret_ttl_ms: 31 * 86_400_000 }, "previous_secret_ttl_ms");
  });

  it("changing a source's scheme drops a previous secret of the old scheme", async () => {
    const source = await register("standard-webhooks", SENDERS["standard-webhooks"].newSecret());
    const put = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { secret: SENDERS["standard-webhooks"].newSecret(), previous_secret_ttl_ms: 60_000 });
    expect(put.json.previous_secret_expires_at).not.toBeNull();
    const moved = await suite.api("PUT", `/v1/webhooks/sources/${source}`, {
      scheme: "slack",
      secret: SENDERS.slack.newSecret(),
      previous_secret_ttl_ms: 60_000,
    });
    expect(moved.json).toMatchObject({ scheme: "slack", tolerance_s: 300, previous_secret_expires_at: null });
  });
});
