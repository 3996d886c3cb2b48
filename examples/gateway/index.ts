// A gateway Worker that uses Admit over its Service Binding `ADMIT` (examples/gateway/wrangler.toml):
// /api/* is rate limited per X-Client by the "gateway" policy with the rateLimit() middleware over
// the binding, /slow/* by a concurrency limit of 2 in flight, and POST /book reserves a resource
// through `admit(env.ADMIT).reserve()`, passing its client's Idempotency-Key on, so a client's retry
// books once. It has no database binding and no API token.
//
// Two more routes are for the tests and the bench only, and answer 404 unless the var
// GATEWAY_TEST_ROUTES is "1" (wrangler.toml does not set it; test/rpc/rpc.runtime.test.ts and
// bench/binding.ts pass `--var GATEWAY_TEST_ROUTES:1`): POST /rpc/:method calls any method of the
// binding with any input, unauthenticated, and answers what came back, as JSON (raw answers and
// errors); POST /measure/http-check forwards the request's Authorization header to the URL in its
// X-Admit-Url header. Both would be an open door in a deployed gateway.

import { type AdmitBinding, AdmitError, admit, rateLimit } from "@admit/hono";
import { Hono, type MiddlewareHandler } from "hono";

type Env = { Bindings: { ADMIT: AdmitBinding; GATEWAY_TEST_ROUTES?: string } };
const app = new Hono<Env>();

/** The test and measurement routes below: 404, as if absent, unless GATEWAY_TEST_ROUTES is "1". */
const testRoutesOnly: MiddlewareHandler<Env> = async (c, next) => {
  if (c.env?.GATEWAY_TEST_ROUTES !== "1") return c.notFound();
  await next();
};

app.get("/", (c) => c.json({ name: "admit-gateway-example" }));

app.use(
  "/api/*",
  rateLimit<import("hono").Context<Env>>({ binding: (c) => c.env.ADMIT, policy: "gateway", key: (c) => c.req.header("X-Client") ?? "anonymous" }),
);
app.get("/api/hello", (c) => c.json({ hello: "from behind the gateway" }));

// At most 2 requests in flight at once on /slow/* (a semaphore of Admit's, created on first use),
// given back over the binding after the response. /slow-stats: this isolate's own peak.
let running = 0;
let peak = 0;
app.use(
  "/slow/*",
  rateLimit<import("hono").Context<Env>>({ binding: (c) => c.env.ADMIT, concurrency: { name: "gateway-inflight", permits: 2, ttl_ms: 60_000 } }),
);
app.get("/slow/work", async (c) => {
  running++;
  peak = Math.max(peak, running);
  try {
    await new Promise((r) => setTimeout(r, Number(c.req.query("ms") ?? "300")));
  } finally {
    running--;
  }
  return c.json({ done: true });
});
app.get("/slow-stats", (c) => c.json({ running, peak }));

app.post("/book", async (c) => {
  // A body that is not JSON is the client's mistake (400), not the gateway's (Hono would answer 500).
  const body = await c.req.json<{ resource: string; holder: string; start: string; end: string }>().catch(() => undefined);
  if (body === undefined) return c.json({ status: 400, type: "/problems/bad-request", message: "The body is not JSON." }, 400);
  try {
    const r = await admit(c.env.ADMIT).reserve(body, { idempotencyKey: c.req.header("Idempotency-Key") });
    return r.created ? c.json(r, 201) : c.json(r, 409);
  } catch (err) {
    if (!(err instanceof AdmitError)) throw err;
    // Admit's Retry-After (a 503, a lock timeout) goes on to the client as the header it honours.
    if (err.retryAfter !== undefined) c.header("Retry-After", String(err.retryAfter));
    return c.json({ status: err.status, type: err.type, message: err.message, retryAfter: err.retryAfter }, err.status as 422);
  }
});

app.post("/rpc/:method", testRoutesOnly, async (c) => {
  const method = c.req.param("method") as keyof AdmitBinding;
  const input = await c.req.json();
  const started = performance.now();
  try {
    const result = await (c.env.ADMIT[method] as (i: unknown) => Promise<unknown>)(input);
    return c.json({ result, ms: performance.now() - started });
  } catch (err) {
    return c.json({ thrown: { name: (err as Error).name, message: (err as Error).message } }, 500);
  }
});

// Measurement only (bench/binding.ts), behind GATEWAY_TEST_ROUTES: the same check over HTTP, to an
// Admit URL and token the request itself carries — this Worker's configuration holds neither.
app.post("/measure/http-check", testRoutesOnly, async (c) => {
  const started = performance.now();
  const res = await fetch(`${c.req.header("X-Admit-Url")}/v1/ratelimits/check`, {
    method: "POST",
    headers: { Authorization: c.req.header("Authorization") ?? "", "Content-Type": "application/json" },
    body: await c.req.text(),
  });
  const result = await res.json();
  return c.json({ result, ms: performance.now() - started });
});

export default { fetch: app.fetch };
