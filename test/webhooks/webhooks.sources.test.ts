// Webhook sources: GET /v1/webhooks/sources (issue 22's dashboard), every registered sender, paged by
// name, never a secret; PUT registering and replacing one, and its 422s.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { servedApp } from "../support";
import { newSecret } from "./webhooks.support";

const suite = servedApp("webhooks_sources");
const SECRET = `whsec_${Buffer.from("a-secret-of-enough-bytes-32-long").toString("base64")}`;

describe("GET /v1/webhooks/sources", () => {
  it("lists sources by name without their secrets, page by page", async () => {
    expect((await suite.api("GET", "/v1/webhooks/sources")).json).toEqual({ items: [], next_cursor: null });
    for (const s of ["stripe", "billing"]) expect((await suite.api("PUT", `/v1/webhooks/sources/${s}`, { secret: SECRET })).status).toBe(201);
    const r = await suite.api("GET", "/v1/webhooks/sources?limit=1");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ items: [{ source: "billing", tolerance_s: 300 }], next_cursor: "billing" });
    expect((await suite.api("GET", "/v1/webhooks/sources?cursor=billing")).json).toMatchObject({ items: [{ source: "stripe" }], next_cursor: null });
    expect(JSON.stringify(r.json)).not.toContain("whsec_");
    expect((await fetch(`${suite.server.url}/v1/webhooks/sources`)).status).toBe(401);
  });
});

describe("sources", () => {
  it("PUT registers (201) and replaces (200); no endpoint ever returns the secret", async () => {
    const secret = newSecret();
    const created = await suite.api("PUT", "/v1/webhooks/sources/stripe-like", { secret, ordering_key: "/data/subscription_id" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      source: "stripe-like",
      scheme: "standard-webhooks",
      tolerance_s: 300,
      ordering_key: "/data/subscription_id",
      hmac: null,
      replay_window_s: null,
      previous_secret_expires_at: null,
      recent_rejections: [],
      forward: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const secret2 = newSecret();
    const replaced = await suite.api("PUT", "/v1/webhooks/sources/stripe-like", { secret: secret2, tolerance_s: 60 });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ source: "stripe-like", tolerance_s: 60, ordering_key: null });
    const got = await suite.api("GET", "/v1/webhooks/sources/stripe-like");
    expect(got.status).toBe(200);
    expect(got.json).toEqual(replaced.json);
    const list = await suite.api("GET", "/v1/webhooks/stripe-like/events");
    for (const text of [created.text, replaced.text, got.text, list.text]) {
      expect(text).not.toContain(secret.slice(6, 20));
      expect(text).not.toContain(secret2.slice(6, 20));
      // No secret field (previous_secret_expires_at is a time, not the secret).
      expect(text).not.toMatch(/"(previous_)?secret"/);
    }
    expect((await suite.api("GET", "/v1/webhooks/sources/nobody")).status).toBe(404);
  });

  it("refuses bad input with 422 field errors", async () => {
    const bad = async (source: string, body: unknown) => {
      const res = await suite.api("PUT", `/v1/webhooks/sources/${source}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.errors.length).toBeGreaterThan(0);
      return res;
    };
    const noPrefix = await bad("s1", { secret: randomBytes(32).toString("base64") });
    expect(noPrefix.json.errors[0]).toMatchObject({ in: "body", path: "secret" });
    await bad("s1", { secret: "whsec_" + randomBytes(8).toString("base64") }); // too short
    await bad("s1", { secret: "whsec_not*base64!" });
    await bad("s1", { secret: newSecret(), tolerance_s: 0 });
    await bad("s1", { secret: newSecret(), ordering_key: "data/x" });
    await bad("s1", { secret: newSecret(), ordering_key: "/a~2" });
    await bad("sources", { secret: newSecret() });
    await bad("bad%20name", { secret: newSecret() });
    // A 422 names the field, never echoes the secret.
    const res = await suite.api("PUT", "/v1/webhooks/sources/s1", { secret: "whsec_" + "A".repeat(10) });
    expect(res.text).not.toContain("AAAAAAAAAA");
  });
});
