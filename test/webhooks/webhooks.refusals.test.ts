// What a sender sees of a refused delivery, against real Postgres over real HTTP: nothing. Every
// failure before verification (no headers at all, a header missing or malformed, a guessed prefix, a
// flipped byte, a wrong secret, a stale or future timestamp), to an existing source of every scheme,
// gets the very answer a delivery to a source that does not exist gets: the same status, the same
// headers, the same body, byte for byte. Why it was refused is shown to the source's owner
// (recent_rejections of its authenticated GET) and written to the decision log.
import { afterEach, describe, expect, it, vi } from "vitest";
import { client, servedApp } from "../support";
import { HMAC_SETTINGS, SCHEMES, type SchemeName, SENDERS, senderId } from "./senders";
import { dbNowS } from "./webhooks.support";

const suite = servedApp("webhooks_refusals");
const anon = () => client(suite.server.url, null);

type Delivery = { body: string; headers: Record<string, string> };

/** An answer as a sender can compare it: status, every header but Date, and the body's bytes. */
async function answer(source: string, d: Delivery) {
  const res = await anon()("POST", `/v1/webhooks/${source}`, d.body, d.headers);
  const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== "date"));
  return { status: res.status, headers, body: res.text };
}

const without = (h: Record<string, string>, name: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));

/** Each way a delivery to `scheme` fails before it is verified, and the reason its owner is shown. */
async function failures(scheme: SchemeName, secret: string, n: number): Promise<Array<[string, Delivery, string]>> {
  const sender = SENDERS[scheme];
  const now = await dbNowS(suite.db);
  const good = await sender.deliver([secret], senderId(scheme, n), "thing.created", { n }, now);
  const at = good.body.indexOf("thing.created") + 2;
  const flipped = good.body.slice(0, at) + String.fromCharCode(good.body.charCodeAt(at) ^ 1) + good.body.slice(at + 1);
  const cases: Array<[string, Delivery, string]> = [
    ["no headers at all", { body: good.body, headers: {} }, "missing-header"],
    ["signature header missing", { body: good.body, headers: without(good.headers, sender.signatureHeader) }, "missing-header"],
    ["signature header malformed", { body: good.body, headers: { ...good.headers, [sender.signatureHeader]: "not-a-signature" } }, "malformed-header"],
    ["flipped byte", { body: flipped, headers: good.headers }, "signature-mismatch"],
    ["wrong secret", await sender.deliver([sender.newSecret()], senderId(scheme, n + 1), "thing.created", {}, now), "signature-mismatch"],
  ];
  if (sender.timestamped) {
    cases.push(["10 minutes old", await sender.deliver([secret], senderId(scheme, n + 2), "thing.created", {}, now - 600), "timestamp-outside-tolerance"]);
    cases.push(["10 minutes ahead", await sender.deliver([secret], senderId(scheme, n + 3), "thing.created", {}, now + 600), "timestamp-outside-tolerance"]);
  }
  if (scheme === "hmac") {
    // Guessing the custom header's prefix: a wrong guess and the right one look the same.
    const sig = good.headers[HMAC_SETTINGS.header].slice(HMAC_SETTINGS.prefix.length);
    cases.push(["prefix guessed wrong", { body: flipped, headers: { ...good.headers, [HMAC_SETTINGS.header]: `sha1=${sig}` } }, "malformed-header"]);
    cases.push([
      "prefix guessed right",
      { body: flipped, headers: { ...good.headers, [HMAC_SETTINGS.header]: `${HMAC_SETTINGS.prefix}${sig}` } },
      "signature-mismatch",
    ]);
  }
  return cases;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("before a delivery is verified, every failure looks the same to the sender", () => {
  it.each(SCHEMES.map((s) => [s] as const))(
    "%s: each failure → the answer an unknown source gets (status, headers, body); the owner's GET says which it was",
    async (scheme) => {
      const sender = SENDERS[scheme];
      const secret = sender.newSecret();
      const source = `refusals-${scheme}`;
      expect((await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret })).status).toBe(201);
      const warned: unknown[] = [];
      vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warned.push(line));
      const unknown = await answer(`no-such-${scheme}`, { body: "{}", headers: {} });
      const cases = await failures(scheme, secret, 100);
      for (const [label, d, reason] of cases) {
        expect(await answer(source, d), label).toEqual(unknown);
        // The same request to a source that does not exist is answered alike.
        expect(await answer(`no-such-${scheme}`, d), label).toEqual(unknown);
        const [latest] = (await suite.api("GET", `/v1/webhooks/sources/${source}`)).json.recent_rejections;
        expect(latest, label).toEqual({ at: expect.any(String), reason, detail: expect.any(String), ...(latest.header ? { header: latest.header } : {}) });
        if (reason !== "signature-mismatch") expect(latest.header, label).toEqual(expect.any(String));
        if (latest.header) expect(latest.detail, label).toContain(latest.header);
        expect(JSON.stringify(latest), label).not.toContain(secret.slice(-12));
        // The decision log has it too, at warn (the default level): an existing source refused a delivery.
        expect(warned.at(-1), label).toMatchObject({ event: "admit.webhook.rejected", source, known_source: true, reason });
      }
      expect(unknown.status).toBe(401);
      expect(unknown.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(unknown.body)).toEqual({
        type: "/problems/webhook-signature",
        title: "Webhook not verified",
        status: 401,
        detail:
          "The delivery was not verified, and nothing was stored. Why is shown to the source's owner (GET /v1/webhooks/sources/{source}: recent_rejections), not to the sender.",
      });
      const { recent_rejections } = (await suite.api("GET", `/v1/webhooks/sources/${source}`)).json;
      expect(recent_rejections.map((r: { reason: string }) => r.reason)).toEqual(
        cases
          .map(([, , reason]) => reason)
          .reverse()
          .slice(0, 10),
      );
      expect(recent_rejections.map((r: { at: string }) => r.at)).toEqual(
        recent_rejections
          .map((r: { at: string }) => r.at)
          .sort()
          .reverse(),
      );
    },
  );

  it("the owner keeps the latest 10 rejections, newest first, with the detail the sender no longer gets", async () => {
    const sender = SENDERS.stripe;
    const secret = sender.newSecret();
    expect((await suite.api("PUT", "/v1/webhooks/sources/refusals-latest", { ...sender.settings, secret })).status).toBe(201);
    const now = await dbNowS(suite.db);
    for (let i = 0; i < 11; i++) await answer("refusals-latest", await sender.deliver([sender.newSecret()], `evt_${i}`, "x", {}, now));
    const stale = await answer("refusals-latest", await sender.deliver([secret], "evt_stale", "x", {}, now - 900));
    expect(stale.status).toBe(401);
    const { recent_rejections } = (await suite.api("GET", "/v1/webhooks/sources/refusals-latest")).json;
    expect(recent_rejections).toHaveLength(10);
    expect(recent_rejections[0]).toMatchObject({ reason: "timestamp-outside-tolerance", header: "Stripe-Signature" });
    expect(recent_rejections[0].detail).toMatch(/\b(8[7-9]\d|9[0-3]\d) s old; this source accepts ±300 s\.$/);
    expect(recent_rejections.slice(1).map((r: { reason: string }) => r.reason)).toEqual(Array(9).fill("signature-mismatch"));
    // The list shows them too.
    const listed = (await suite.api("GET", "/v1/webhooks/sources?limit=1000")).json.items.find((s: { source: string }) => s.source === "refusals-latest");
    expect(listed.recent_rejections).toEqual(recent_rejections);
  });
});
