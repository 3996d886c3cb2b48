// Idempotency-Key and webhook receiving inside the real Workers runtime (`wrangler dev`, workerd):
// the standardwebhooks package, Web Crypto hashing and the body caching all as deployed.
import { describe, expect, it } from "vitest";
import { ownSocket } from "../../dev/wrangler";
import { client, sql, workerSuite } from "../support";
import { SCHEMES, SENDERS, senderId, slackSignature } from "./senders";
import { dbNowS, newSecret, signedHeaders } from "./webhooks.support";

const suite = workerSuite("webhooks_runtime");

describe("in wrangler dev", () => {
  it("Idempotency-Key: 10 simultaneous identical POSTs → one reservation; a later retry is a byte-identical replay; another body → 422", async () => {
    const body = { resource: "rt-idem", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" };
    const headers = { "Idempotency-Key": "rt-key-1" };
    const results = await Promise.all(Array.from({ length: 10 }, () => suite.api("POST", "/v1/reservations", body, headers)));
    for (const r of results) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 409) expect(r.json.type).toBe("/problems/idempotency-key-in-use");
    }
    const firsts = results.filter((r) => r.status === 201 && !r.headers.get("idempotent-replayed"));
    expect(firsts).toHaveLength(1);
    const again = await suite.api("POST", "/v1/reservations", body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(firsts[0].text);
    expect(again.headers.get("location")).toBe(`/v1/reservations/${firsts[0].json.id}`);
    expect(await sql(suite.db, "SELECT id FROM reservations WHERE resource = 'rt-idem'")).toEqual([{ id: firsts[0].json.id }]);
    const other = await suite.api("POST", "/v1/reservations", { ...body, holder: "x" }, headers);
    expect(other.status).toBe(422);
    expect(other.json.type).toBe("/problems/idempotency-key-reused");
  });

  it("a signed delivery without a token is stored once; a redelivery is replayed; tampered or stale → 401, nothing stored", async () => {
    const secret = newSecret();
    expect((await suite.api("PUT", "/v1/webhooks/sources/rt-billing", { secret })).status).toBe(201);
    const anon = client(ownSocket(suite.worker), null);
    const payload = JSON.stringify({ type: "invoice.paid", data: { id: "in_rt" } });
    const now = await dbNowS(suite.db);
    const first = await anon("POST", "/v1/webhooks/rt-billing", payload, signedHeaders([newSecret(), secret], "msg_rt", now, payload));
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ id: expect.any(String), status: "received" });
    const again = await anon("POST", "/v1/webhooks/rt-billing", payload, signedHeaders([secret], "msg_rt", now, payload));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toEqual(first.json);

    const tampered = await anon("POST", "/v1/webhooks/rt-billing", payload.replace("in_rt", "in_xx"), signedHeaders([secret], "msg_rt_bad", now, payload));
    expect(tampered.status).toBe(401);
    const stale = await anon("POST", "/v1/webhooks/rt-billing", payload, signedHeaders([secret], "msg_rt_old", now - 600, payload));
    expect(stale.status).toBe(401);
    expect(await sql(suite.db, "SELECT webhook_id FROM webhook_events ORDER BY seq")).toEqual([{ webhook_id: "msg_rt" }]);

    const claimed = await suite.api("POST", "/v1/webhooks/rt-billing/events/claim", { limit: 5 });
    expect(claimed.json.events.map((e: { id: string }) => e.id)).toEqual([first.json.id]);
    expect((await suite.api("POST", `/v1/webhooks/rt-billing/events/${first.json.id}/ack`, { receipt: claimed.json.events[0].receipt })).json.status).toBe(
      "processed",
    );
  });

  it.each(SCHEMES.map((s) => [s] as const))(
    "%s: a delivery signed by the sender's library verifies in workerd (WebCrypto HMAC), a redelivery is replayed, a flipped byte → 401",
    async (scheme) => {
      const sender = SENDERS[scheme];
      const secret = sender.newSecret();
      const source = `rt-${scheme}`;
      expect((await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret })).status).toBe(201);
      const anon = client(ownSocket(suite.worker), null);
      const now = await dbNowS(suite.db);
      const id = senderId(scheme, "rt");
      const d = await sender.deliver([secret], id, "rt.event", { n: 1 }, now);
      const first = await anon("POST", `/v1/webhooks/${source}`, d.body, d.headers);
      expect(first.status, first.text).toBe(200);
      const again = await anon("POST", `/v1/webhooks/${source}`, d.body, d.headers);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      const at = d.body.indexOf('"n"') + 1; // one byte of the body flipped: "n" → "o"
      const flipped = d.body.slice(0, at) + String.fromCharCode(d.body.charCodeAt(at) ^ 1) + d.body.slice(at + 1);
      const bad = await anon("POST", `/v1/webhooks/${source}`, flipped, d.headers);
      expect(bad.status).toBe(401);
      // In workerd too, the sender cannot tell it from a delivery to a source that does not exist.
      const unknown = await anon("POST", `/v1/webhooks/no-such-${scheme}`, flipped, d.headers);
      const seen = (r: typeof bad) => [r.status, r.headers.get("content-type"), r.headers.get("content-length"), r.text];
      expect(seen(bad)).toEqual(seen(unknown));
      expect((await suite.api("GET", `/v1/webhooks/sources/${source}`)).json.recent_rejections[0]).toMatchObject({
        reason: "signature-mismatch",
        header: sender.signatureHeader,
      });
      expect(await sql(suite.db, "SELECT webhook_id, event_type FROM webhook_events WHERE source = $1", [source])).toEqual([
        { webhook_id: id, event_type: "rt.event" },
      ]);
      if (scheme === "slack") {
        const body = JSON.stringify({ token: "t", challenge: "rt-challenge", type: "url_verification" });
        const hs = await anon("POST", `/v1/webhooks/${source}`, body, {
          "X-Slack-Signature": slackSignature(secret, now, body),
          "X-Slack-Request-Timestamp": String(now),
        });
        expect(hs.json).toEqual({ challenge: "rt-challenge" });
      }
    },
  );
});
