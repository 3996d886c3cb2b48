// 405 + Allow (functions/http/methods.ts) on its own: the allowed methods are read from whatever routes
// an app registers, with any method (app.on), for every method (app.all), or as sub-apps.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createApp } from "../../functions/http/app";
import { methodsOf, noRoute } from "../../functions/http/methods";
import { client, servedApp } from "../support";

function app() {
  const a = new Hono();
  a.use("*", async (_c, next) => next()); // middleware: registered for "ALL", no route
  a.get("/things/:id", (c) => c.text("get"));
  a.on(["PUT", "PURGE"], "/things/:id", (c) => c.text("put"));
  a.all("/anything", (c) => c.text(`any ${c.req.method}`));
  const sub = new Hono();
  sub.post("/go", (c) => c.text("go"));
  a.route("/sub", sub);
  a.notFound(noRoute(methodsOf(() => a.routes)));
  return a;
}

describe("405 with Allow from the registered routes", () => {
  const a = app();
  it("a method the path lacks → 405 problem+json listing every registered method, HEAD with GET, OPTIONS", async () => {
    const res = await a.request("/things/7", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, PUT, OPTIONS, PURGE");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect((await res.json()).type).toBe("/problems/method-not-allowed");
    const sub = await a.request("/sub/go", { method: "GET" });
    expect([sub.status, sub.headers.get("allow")]).toEqual([405, "POST, OPTIONS"]);
  });
  it("HEAD is GET's; HEAD where there is no GET is a 405", async () => {
    expect((await a.request("/things/7", { method: "HEAD" })).status).toBe(200);
    expect((await a.request("/sub/go", { method: "HEAD" })).status).toBe(405);
  });
  it("OPTIONS → 204 with Allow; a route for every method answers them all itself", async () => {
    const res = await a.request("/things/7", { method: "OPTIONS" });
    expect([res.status, res.headers.get("allow"), await res.text()]).toEqual([204, "GET, HEAD, PUT, OPTIONS, PURGE", ""]);
    expect(await (await a.request("/anything", { method: "PATCH" })).text()).toBe("any PATCH");
  });
  it("a path no route has → 404 without Allow (middleware for every path is no route)", async () => {
    const res = await a.request("/nothing", { method: "GET" });
    expect([res.status, res.headers.get("allow")]).toEqual([404, null]);
    expect((await a.request("/things", { method: "GET" })).status).toBe(404);
  });
});

describe("Admit's own routes: no route with a parameter takes a path another route names", () => {
  const app = createApp();
  const allowed = methodsOf(() => app.routes);
  const served = servedApp("methods");

  it("every path without parameters allows exactly its own routes' methods (with HEAD where GET is, and OPTIONS)", () => {
    const own = new Map<string, Set<string>>();
    for (const r of app.routes) {
      if (r.method === "ALL" || /[:*]/.test(r.path)) continue;
      own.set(r.path, (own.get(r.path) ?? new Set()).add(r.method.toUpperCase()));
    }
    expect(own.get("/v1/webhooks/sources")).toEqual(new Set(["GET"]));
    for (const [path, methods] of own) {
      const expected = new Set([...methods, "OPTIONS", ...(methods.has("GET") ? ["HEAD"] : [])]);
      expect(new Set(allowed(path)), path).toEqual(expected);
    }
  });

  it("POST, PUT and DELETE /v1/webhooks/sources → 405 with Allow: GET, HEAD, OPTIONS (not the delivery route, whose {source} can never be `sources`)", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await served.api(method, "/v1/webhooks/sources", {});
      expect([res.status, res.headers.get("allow"), res.headers.get("content-type")], `${method}: ${res.text}`).toEqual([
        405,
        "GET, HEAD, OPTIONS",
        "application/problem+json",
      ]);
      expect(res.json.type).toBe("/problems/method-not-allowed");
    }
    // Without a token it is any other route's 401 (the delivery route alone goes without one), not a webhook refusal.
    const anon = await client(served.server.url, null)("POST", "/v1/webhooks/sources", {});
    expect([anon.status, anon.json.type]).toEqual([401, "/problems/unauthorized"]);
    // A source named like the list but not it is still a delivery.
    expect(allowed("/v1/webhooks/sources2")).toEqual(["POST", "OPTIONS"]);
  });
});
