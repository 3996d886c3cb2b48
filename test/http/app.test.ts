// The foundation's HTTP contract: auth, problem+json everywhere, bounded waits, docs.
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../../dev/local";
import { tokenMatches } from "../../functions/core/auth";
import { bindings, client, serveApp, servedApp, TOKEN } from "../support";

const suite = servedApp("app");

function expectProblem(res: { status: number; headers: Headers; json: any; text: string }, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.json).toMatchObject({ status, title: expect.any(String), type: expect.any(String) });
  expect(res.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/); // never a stack trace
}

const valid = { resource: "r", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" };

describe("auth", () => {
  it("GET /health needs no token and answers ok", async () => {
    const res = await client(suite.server.url, null)("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
  });

  it("/v1 without a token, with a wrong one, or with another scheme → 401 problem", async () => {
    const none = await client(suite.server.url, null)("GET", "/v1/reservations?resource=r");
    expectProblem(none, 401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expectProblem(await client(suite.server.url, TOKEN + "x")("GET", "/v1/reservations?resource=r"), 401);
    expectProblem(await client(suite.server.url, TOKEN.slice(0, -1))("GET", "/v1/reservations?resource=r"), 401);
    expectProblem(await client(suite.server.url, null)("GET", "/v1/reservations?resource=r", undefined, { Authorization: `Basic ${TOKEN}` }), 401);
    expect((await suite.api("GET", "/v1/reservations?resource=r")).status).toBe(200);
  });

  it("checks the token before anything about the body", async () => {
    const anon = client(suite.server.url, null);
    expectProblem(await anon("POST", "/v1/reservations", "x".repeat(70 * 1024), { "Content-Type": "text/plain" }), 401);
    expectProblem(await anon("POST", "/v1/reservations", "{broken"), 401);
  });
  // Every /v1 operation of the OpenAPI document, against every kind of bad token: test/across/abuse.test.ts.
});

describe("problem+json for bad requests", () => {
  it("unknown route → 404", async () => {
    expectProblem(await suite.api("GET", "/v1/nope"), 404);
    expectProblem(await client(suite.server.url, null)("GET", "/nope"), 404);
  });

  it("malformed JSON → 400", async () => {
    expectProblem(await suite.api("POST", "/v1/reservations", "{not json"), 400);
  });

  it("a body over 64 KiB → 413, and nothing is read further", async () => {
    const res = await suite.api("POST", "/v1/reservations", { ...valid, metadata: { pad: "x".repeat(70 * 1024) } });
    expectProblem(res, 413);
  });

  it("a non-JSON content type → 415", async () => {
    expectProblem(await suite.api("POST", "/v1/reservations", "resource=r", { "Content-Type": "application/x-www-form-urlencoded" }), 415);
    expectProblem(await suite.api("POST", "/v1/reservations", JSON.stringify(valid), { "Content-Type": "text/plain" }), 415);
  });

  it("validation → 422 with errors [{path, message}]", async () => {
    const res = await suite.api("POST", "/v1/reservations", {});
    expectProblem(res, 422);
    expect(res.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "resource", message: expect.any(String) })]));
  });
});

describe("docs", () => {
  it("serves an OpenAPI 3.1 document generated from the schemas", async () => {
    const res = await client(suite.server.url, null)("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    expect(Object.keys(res.json.paths)).toEqual(
      expect.arrayContaining(["/health", "/v1/reservations", "/v1/reservations/{id}", "/v1/resources/{resource}/availability"]),
    );
    expect(res.json.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(res.json.paths["/health"].get.security).toEqual([]);
  });

  // /docs is a Workers static asset (public/docs.html), not an app route: the Workers runtime
  // serves it, so test/browser/docs.browser.test.ts checks it there, in a browser. The app alone leaves it.
  it("leaves /docs to the Worker's static assets (not an app route)", async () => {
    const res = await client(suite.server.url, null)("GET", "/docs");
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ status: 404, type: "/problems/not-found" });
  });
});

/** A TCP server that accepts and reads but never answers: a frozen Postgres, as the bridge sees it. */
async function blackHole(): Promise<{ port: number; server: Server }> {
  const srv = createServer((socket) => socket.on("data", () => {}));
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return { port: (srv.address() as { port: number }).port, server: srv };
}

describe("an unreachable database", () => {
  it("nothing listening: /health and writes answer 503 + Retry-After at once", async () => {
    const port = await freePort();
    const down = await serveApp(bindings(`postgres://postgres:admit@127.0.0.1:${port}/admit`));
    try {
      const health = await client(down.url, null)("GET", "/health");
      expectProblem(health, 503);
      expect(Number(health.headers.get("retry-after"))).toBeGreaterThan(0);
      const write = await client(down.url)("POST", "/v1/reservations", valid);
      expectProblem(write, 503);
      expect(write.headers.get("retry-after")).not.toBeNull();
    } finally {
      await down.close();
    }
  });

  it("a database that never answers: /health → 503 within 5 s; a sent write → 504 outcome unknown; nothing hangs", async () => {
    const hole = await blackHole();
    const url = `postgres://postgres:admit@127.0.0.1:${hole.port}/admit`;
    // The default request budget (5 s) must not stretch /health past 5 s.
    const defaults = await serveApp(bindings(url));
    const down = await serveApp(bindings(url, { DB_BUDGET_MS: "1500" }));
    try {
      const health = await fetch(defaults.url + "/health", { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(503);
      expect(health.headers.get("retry-after")).not.toBeNull();
      const write = await client(down.url)("POST", "/v1/reservations", valid);
      expectProblem(write, 504);
      expect(write.json.detail).toMatch(/may or may not have been applied/);
      const read = await client(down.url)("GET", "/v1/reservations?resource=r");
      expectProblem(read, 503);
    } finally {
      await Promise.all([defaults.close(), down.close()]);
      hole.server.close();
    }
  });
});

describe("tokenMatches (the bearer token's constant-time comparison)", () => {
  it("is true for the same token only: not a prefix, an extension, one character off, other case or empty", () => {
    const t = "dev_abcDEF123";
    expect(tokenMatches(t, t)).toBe(true);
    for (const other of ["", "dev_", "dev_abcDEF12", "dev_abcDEF1234", "dev_abcDEF124", "DEV_abcDEF123", "xdev_abcDEF123", "dev_abcDEF123\0"]) {
      expect(tokenMatches(other, t), JSON.stringify(other)).toBe(false);
    }
  });
});
