// GET /v1/webhooks/sources (issue 22's dashboard): every registered sender, paged by name, never a secret.
import { describe, expect, it } from "vitest";
import { servedApp } from "../support";

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
