// The rate-limit reads the dashboard needs (issue 22): every policy (paged by name), every override of
// a policy, and whether this isolate's deny cache refuses a key (usage's deny_cached_until).
import { describe, expect, it } from "vitest";
import { servedApp } from "../support";

const suite = servedApp("ratelimits_lists");
const YEAR = 366 * 86_400_000;

describe("GET /v1/ratelimits/policies", () => {
  it("lists policies by name, page by page, and an empty database as an empty list", async () => {
    expect((await suite.api("GET", "/v1/ratelimits/policies")).json).toEqual({ items: [], next_cursor: null });
    for (const name of ["c", "a", "b"]) {
      expect((await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 5, window_ms: 60_000 })).status).toBe(201);
    }
    const first = await suite.api("GET", "/v1/ratelimits/policies?limit=2");
    expect(first.status).toBe(200);
    expect(first.json.items.map((p: any) => p.name)).toEqual(["a", "b"]);
    expect(first.json.items[0]).toMatchObject({ algorithm: "fixed_window", limit: 5, window_ms: 60_000 });
    expect(first.json.next_cursor).toBe("b");
    const second = await suite.api("GET", `/v1/ratelimits/policies?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json).toMatchObject({ items: [{ name: "c" }], next_cursor: null });
  });

  it("refuses a limit outside 1–1000 (422) and a caller without the token (401)", async () => {
    expect((await suite.api("GET", "/v1/ratelimits/policies?limit=0")).status).toBe(422);
    expect((await suite.api("GET", "/v1/ratelimits/policies?limit=1001")).status).toBe(422);
    expect((await fetch(`${suite.server.url}/v1/ratelimits/policies`)).status).toBe(401);
  });
});

describe("GET /v1/ratelimits/policies/{name}/overrides", () => {
  it("lists the overrides of every key of the policy, by key then start; 404 for no policy", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/ov", { algorithm: "fixed_window", limit: 5, window_ms: 60_000 });
    await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/k2", { limit: 7, valid_from: "2030-01-01T00:00:00Z" });
    await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/k1", { limit: 9, valid_from: "2030-02-01T00:00:00Z" });
    await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/k1", { limit: 8, valid_from: "2030-01-01T00:00:00Z", valid_to: "2030-02-01T00:00:00Z" });
    const r = await suite.api("GET", "/v1/ratelimits/policies/ov/overrides");
    expect(r.status).toBe(200);
    expect(r.json.items.map((o: any) => [o.key, o.limit])).toEqual([
      ["k1", 8],
      ["k1", 9],
      ["k2", 7],
    ]);
    const missing = await suite.api("GET", "/v1/ratelimits/policies/nope/overrides");
    expect(missing.status).toBe(404);
    expect(missing.json.type).toBe("/problems/not-found");
  });

  it("pages by (key, valid_from): every period once, in order, whatever the page size; a cursor it did not give is a 422", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/ovp", { algorithm: "fixed_window", limit: 5, window_ms: 60_000 });
    const keys = ["b", "a", "ключ|1", "a|"];
    for (const key of keys) {
      for (const month of ["01", "03", "02"]) {
        const r = await suite.api("PUT", `/v1/ratelimits/policies/ovp/overrides/${encodeURIComponent(key)}`, {
          limit: 10,
          valid_from: `2030-${month}-01T00:00:00Z`,
          valid_to: `2030-${month}-02T00:00:00Z`,
        });
        expect(r.status, `${key} ${month}`).toBe(201);
      }
    }
    const everything = (await suite.api("GET", "/v1/ratelimits/policies/ovp/overrides")).json;
    expect(everything.next_cursor).toBeNull();
    const order = everything.items.map((o: any) => `${o.key}@${o.valid_from}`);
    expect(order).toHaveLength(12);
    expect(order.slice(0, 3)).toEqual(["a@2030-01-01T00:00:00Z", "a@2030-02-01T00:00:00Z", "a@2030-03-01T00:00:00Z"]);
    for (const size of [1, 2, 5]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `limit=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page = (await suite.api("GET", `/v1/ratelimits/policies/ovp/overrides?${q}`)).json;
        expect(page.items.length).toBeLessThanOrEqual(size);
        seen.push(...page.items.map((o: any) => `${o.key}@${o.valid_from}`));
        cursor = page.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(seen, `limit=${size}`).toEqual(order);
    }
    const bad = await suite.api("GET", "/v1/ratelimits/policies/ovp/overrides?cursor=not-a-cursor");
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual([{ in: "query", path: "cursor", message: "invalid cursor" }]);
  });
});

describe("usage's deny_cached_until", () => {
  it("is null until a denial is cached in this isolate, then the moment the cache refuses until", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/dc", { algorithm: "fixed_window", limit: 1, window_ms: YEAR });
    const usage = () => suite.api("GET", "/v1/ratelimits/usage?policy=dc&key=k");
    expect((await usage()).json.deny_cached_until).toBeNull();
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "dc", key: "k" })).status).toBe(200);
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "dc", key: "k" })).status).toBe(429);
    const u = (await usage()).json;
    // The last unit spent, the isolate remembered the key as denied: the 429 came from the cache (not counted in rejected).
    expect(u).toMatchObject({ admitted: 1, consumed: 1 });
    expect(Date.parse(u.deny_cached_until)).toBeGreaterThan(Date.now());
  });
});
