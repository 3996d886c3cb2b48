// @admit/hono's rateLimit() over HTTP (baseUrl + token) against the real app on its own database:
// the same answers as over the binding (3 × 200 then 429 problem+json with the draft-11 headers), and
// the fail mode when Admit cannot be reached: the caller's "allow" lets the request through marked
// not enforced; with no fail mode known, "deny" answers 503 + Retry-After (nothing reached Admit).
import { rateLimit } from "@admit/hono";
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../dev/local";
import { servedApp, TOKEN } from "../support";

const suite = servedApp("packages_hono_http");

beforeAll(async () => {
  const r = await suite.api("PUT", "/v1/ratelimits/policies/hono-http", { algorithm: "fixed_window", limit: 3, window_ms: 600_000 });
  expect(r.status).toBe(201);
});

function appWith(baseUrl: string, onUnavailable?: "allow" | "deny") {
  const app = new Hono();
  app.use(
    "/api/*",
    rateLimit({ baseUrl, token: TOKEN, policy: "hono-http", key: (c) => c.req.header("x-client") ?? "anonymous", on_unavailable: onUnavailable }),
  );
  app.get("/api/hello", (c) => c.json({ hello: "hono" }));
  return app;
}

describe("@admit/hono over HTTP", () => {
  it("3 × 200, then 429 problem+json with RateLimit, RateLimit-Policy and Retry-After", async () => {
    const app = appWith(suite.server.url);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await app.request("/api/hello", { headers: { "x-client": "frank" } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(last!.headers.get("RateLimit")).toMatch(/^"hono-http";r=0;t=\d+$/);
    expect(last!.headers.get("RateLimit-Policy")).toBe('"hono-http";q=3;w=600');
    expect(Number(last!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect((await last!.json()).type).toBe("/problems/rate-limited");
  });

  it("Admit unreachable: the caller's allow lets it through, not enforced; no fail mode known: 503 + Retry-After", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const open = await appWith(closed, "allow").request("/api/hello");
    expect(open.status).toBe(200);
    expect(open.headers.get("Admit-RateLimit-Enforced")).toBe("false; reason=unavailable");
    const shut = await appWith(closed).request("/api/hello");
    expect(shut.status).toBe(503);
    expect(shut.headers.get("Retry-After")).toBe("1");
    expect((await shut.json()).type).toBe("/problems/ratelimit-unavailable");
  });
});
