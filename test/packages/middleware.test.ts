// @admit/middleware against the real app over HTTP (its own database): a concurrency limit of 1 in
// Express is given back when the response ends and also when the client hangs up mid-request; the
// fetch-handler wrapper gives it back when the body is cancelled; several policies are one
// all-or-nothing check with one RateLimit item each; a cost spends that many units.
import type { AddressInfo } from "node:net";
import { withRateLimit } from "@admit/middleware";
import { rateLimit } from "@admit/middleware/express";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedApp, TOKEN } from "../support";

const suite = servedApp("packages_middleware");
const running: Array<{ close(): void }> = [];
afterAll(() => {
  for (const s of running) s.close();
});

async function policy(name: string, limit: number) {
  const r = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit, window_ms: 600_000 });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
}

async function inUse(name: string): Promise<number> {
  const r = await suite.api("GET", `/v1/semaphores/${name}`);
  return r.json.in_use;
}

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`not within 30 s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("Express: a concurrency limit of 1", () => {
  let url = "";
  let unblock: () => void = () => {};
  beforeAll(async () => {
    const app = express();
    app.use(rateLimit({ baseUrl: suite.server.url, token: TOKEN, concurrency: { name: "mw-inflight", permits: 1, ttl_ms: 600_000 } }));
    // /hold answers only when unblock() is called: a request in flight for as long as the test wants.
    app.get("/hold", (_req, res) => {
      unblock = () => res.json({ done: true });
    });
    app.get("/quick", (_req, res) => res.json({ quick: true }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    running.push(server);
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  it("refuses a second request while one is in flight (429, concurrent-requests item), and frees the permit when the response ends", async () => {
    const held = fetch(`${url}/hold`);
    await until("the first request holds the permit", async () => (await inUse("mw-inflight").catch(() => 0)) === 1);
    const second = await fetch(`${url}/quick`);
    expect(second.status).toBe(429);
    expect(second.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(second.headers.get("RateLimit-Policy")).toBe('"mw-inflight";q=1;qu="concurrent-requests"');
    expect(Number(second.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect((await second.json()).type).toBe("/problems/concurrency-limited");
    unblock();
    expect((await held).status).toBe(200);
    await until("the permit is given back after the response", async () => (await inUse("mw-inflight")) === 0);
    expect((await fetch(`${url}/quick`)).status).toBe(200);
  }, 60_000);

  it("frees the permit when the client hangs up before the answer", async () => {
    const abort = new AbortController();
    const held = fetch(`${url}/hold`, { signal: abort.signal }).catch((e: Error) => e);
    await until("the request holds the permit", async () => (await inUse("mw-inflight")) === 1);
    abort.abort();
    expect(await held).toBeInstanceOf(Error);
    await until("the permit is given back on the hang-up", async () => (await inUse("mw-inflight")) === 0);
    expect((await fetch(`${url}/quick`)).status).toBe(200);
    unblock();
  }, 60_000);
});

describe("the fetch-handler wrapper", () => {
  it("several policies: all-or-nothing, one RateLimit item each; a cost spends that many", async () => {
    await policy("mw-burst", 5);
    await policy("mw-daily", 100);
    const handler = withRateLimit(() => Response.json({ ok: true }), {
      baseUrl: suite.server.url,
      token: TOKEN,
      policies: ["mw-burst", "mw-daily"],
      key: (req) => req.headers.get("x-client") ?? "anonymous",
      cost: (req) => Number(new URL(req.url).searchParams.get("cost") ?? "1"),
    });
    const first = await handler(new Request("http://app/x?cost=4", { headers: { "x-client": "erin" } }));
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit")).toMatch(/^"mw-burst";r=1;t=\d+, "mw-daily";r=96;t=\d+$/);
    const refused = await handler(new Request("http://app/x?cost=2", { headers: { "x-client": "erin" } }));
    expect(refused.status).toBe(429);
    expect((await refused.json())["violated-policies"]).toEqual(["mw-burst"]);
    // Nothing was spent by the refusal: mw-daily still has 96.
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=mw-daily&key=erin");
    expect(usage.json.consumed).toBe(4);
  }, 60_000);

  it("a concurrency permit is given back when the client stops reading the body", async () => {
    let pull = 0;
    const handler = withRateLimit(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new TextEncoder().encode(`chunk ${pull++}\n`));
            },
          }),
        ),
      { baseUrl: suite.server.url, token: TOKEN, concurrency: { name: "mw-stream", permits: 1, ttl_ms: 600_000 } },
    );
    const res = await handler(new Request("http://app/stream"));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    expect(await inUse("mw-stream")).toBe(1);
    expect((await handler(new Request("http://app/stream"))).status).toBe(429);
    await reader.cancel();
    await until("the permit is given back on cancel", async () => (await inUse("mw-stream")) === 0);
  }, 60_000);
});
