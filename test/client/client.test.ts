// The typed client (client/index.ts) against the real app over HTTP, and its retry policy against a
// small local server that answers what each test tells it to.
import { execFile } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AdmitProblemError, createAdmitClient, idempotencyKey, orThrow, retryAfterMs } from "@admit/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { roomInDay, servedApp, TOKEN } from "../support";

const suite = servedApp("client");
const admit = () => createAdmitClient({ baseUrl: suite.server.url, token: TOKEN });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("the typed client against the app", () => {
  it("creates a reservation and gets the typed 201 body", async () => {
    const { data, error, response } = await admit().POST("/v1/reservations", {
      body: { resource: "client/r1", holder: "alice", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ resource: "client/r1", holder: "alice", status: "active" });
    const got = orThrow(await admit().GET("/v1/reservations/{id}", { params: { path: { id: data!.id } } }));
    expect(got.id).toBe(data!.id);
  });

  it("answers an overlap as a typed 409 problem, and orThrow throws it as AdmitProblemError", async () => {
    const body = { resource: "client/r2", holder: "alice", start: "2031-01-01T00:00:00Z", end: "2031-01-03T00:00:00Z" };
    orThrow(await admit().POST("/v1/reservations", { body }));
    const second = await admit().POST("/v1/reservations", { body: { ...body, holder: "bob" } });
    expect(second.data).toBeUndefined();
    expect(second.response.status).toBe(409);
    expect(second.error).toMatchObject({ status: 409, type: "/problems/reservation-conflict" });
    const third = await admit().POST("/v1/reservations", { body: { ...body, holder: "carol" } });
    expect(() => orThrow(third)).toThrow(AdmitProblemError);
    expect(() => orThrow(third)).toThrow(/^409 .*\(\/problems\/reservation-conflict\)$/);
  });

  it("takes a scoped key as its token: the key's scope goes through, another is a typed 403 forbidden naming it", async () => {
    orThrow(
      await admit().PUT("/v1/ratelimits/policies/{name}", {
        params: { path: { name: "client-scoped" } },
        body: { algorithm: "fixed_window", limit: 5, window_ms: 60_000 },
      }),
    );
    const key = orThrow(await admit().POST("/v1/keys", { body: { name: "client gateway", scopes: ["ratelimits:decide"], names: ["client-*"] } }));
    const gateway = createAdmitClient({ baseUrl: suite.server.url, token: key.secret });
    const ok = await gateway.POST("/v1/ratelimits/check", { body: { policy: "client-scoped", key: "k" } });
    expect(ok.response.status).toBe(200);
    const refused = await gateway.DELETE("/v1/ratelimits/policies/{name}", { params: { path: { name: "client-scoped" } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ type: "/problems/forbidden", scope: "ratelimits:admin" });
  });

  it("checks a rate limit: allowed, then refused 429 with the typed result", async () => {
    const policy = orThrow(
      await admit().PUT("/v1/ratelimits/policies/{name}", {
        params: { path: { name: "client-api" } },
        body: { algorithm: "fixed_window", limit: 1, window_ms: 86_400_000 },
      }),
    );
    expect(policy).toMatchObject({ name: "client-api", limit: 1 });
    const check = () => admit().POST("/v1/ratelimits/check", { body: { policy: "client-api", key: "k" } }); // cost defaults to 1
    // Its checks must fall in one of the window's days (fixed windows start at midnight UTC).
    await roomInDay();
    const first = await check();
    expect(first.response.status).toBe(200);
    expect(first.data).toMatchObject({ allowed: true });
    const second = await check();
    expect(second.response.status).toBe(429);
    expect(second.error).toMatchObject({ allowed: false, policy: "client-api", remaining: 0 });
    expect(second.response.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("sends the same Idempotency-Key twice: the second answer is the stored one, replayed", async () => {
    const key = idempotencyKey();
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const send = () =>
      admit().POST("/v1/reservations", {
        params: { header: { "Idempotency-Key": key } },
        body: { resource: "client/idem", holder: "alice", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" },
      });
    const first = await send();
    const again = await send();
    expect([first.response.status, again.response.status]).toEqual([201, 201]);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data!.id).toBe(first.data!.id);
  });

  it("with idempotencyKeys: true, every write carries a fresh key of its own", async () => {
    // The real app answers; a recording fetch shows what the client sent.
    const sent: Request[] = [];
    const keyed = createAdmitClient({
      baseUrl: suite.server.url,
      token: TOKEN,
      idempotencyKeys: true,
      fetch: (request) => {
        sent.push(request.clone());
        return fetch(request);
      },
    });
    const book = (resource: string, key?: string) =>
      keyed.POST("/v1/reservations", {
        params: key ? { header: { "Idempotency-Key": key } } : undefined,
        body: { resource, holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" },
      });
    const a = await book("client/auto-a");
    const b = await book("client/auto-b");
    expect([a.response.status, b.response.status]).toEqual([201, 201]);
    expect(b.response.headers.get("idempotent-replayed")).toBeNull();
    const [ka, kb] = sent.map((r) => r.headers.get("idempotency-key"));
    expect(sent).toHaveLength(2);
    expect(ka).toMatch(UUID);
    expect(kb).toMatch(UUID);
    expect(kb).not.toBe(ka);
    // A key the caller set is kept, not replaced (only a write that has none gets one).
    const own = idempotencyKey();
    expect((await book("client/auto-own", own)).response.status).toBe(201);
    expect(sent[2].headers.get("idempotency-key")).toBe(own);
    // Reads are not writes: no key.
    await keyed.GET("/v1/reservations/{id}", { params: { path: { id: a.data!.id } } });
    expect(sent[3].method).toBe("GET");
    expect(sent[3].headers.has("idempotency-key")).toBe(false);
  });

  it("sends no token when none is given: 401 as a problem", async () => {
    const anonymous = createAdmitClient({ baseUrl: suite.server.url });
    const { error, response } = await anonymous.GET("/v1/reservations/{id}", { params: { path: { id: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" } } });
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ status: 401 });
  });
});

describe("examples/node-client.ts", () => {
  it("books, shows the refusal and the replay, and exits 0 against the app", async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ["--conditions=admit-source", "--import", "tsx", "examples/node-client.ts"],
        { cwd: ROOT, env: { ...process.env, ADMIT: suite.server.url, TOKEN }, timeout: 60_000 },
        (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/^booked example-room\/\d+ for alice/m);
    expect(stdout).toMatch(/^refused bob: 409 .*\/problems\/reservation-conflict/m);
    expect(stdout).toContain("the same request again: 201, replayed: true");
  });
});

/** A server answering each request with the next of `answers` (the last one repeats), recording what it got. */
function scripted() {
  const state = {
    answers: [] as { status: number; headers?: Record<string, string> }[],
    seen: [] as { method: string; headers: IncomingHttpHeaders; body: string }[],
    url: "",
  };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        state.seen.push({ method: req.method!, headers: req.headers, body });
        const a = state.answers[Math.min(state.seen.length - 1, state.answers.length - 1)];
        const json = a.status < 300 ? { id: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" } : { type: "/problems/test", title: "Test", status: a.status };
        res.writeHead(a.status, { "Content-Type": a.status < 300 ? "application/json" : "application/problem+json", ...a.headers }).end(JSON.stringify(json));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return {
    state,
    reset(...answers: typeof state.answers) {
      state.answers = answers;
      state.seen = [];
    },
  };
}

describe("the retry policy (against a scripted local server)", () => {
  const stub = scripted();
  const body = { resource: "r", holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
  const client = (opts: Parameters<typeof createAdmitClient>[0]["retry"] = { defaultDelayMs: 10 }) =>
    createAdmitClient({ baseUrl: stub.state.url, token: "t", retry: opts });

  it("retries a 503 after its Retry-After, resending the same request", async () => {
    // A scripted fetch on the real clock: each call records when it arrived. Only a lower bound is
    // checked (the client waited out Retry-After, not its 10 ms default); a loaded machine can only
    // make the gap longer, so nothing here depends on how fast the machine is. (Fake timers made this
    // depend on no other timer being created in the process while the client slept.)
    const calls: { body: string; authorization: string | null; at: number }[] = [];
    const answers = [
      () =>
        new Response(JSON.stringify({ type: "/problems/test", title: "Test", status: 503 }), {
          status: 503,
          headers: { "Content-Type": "application/problem+json", "Retry-After": "1" },
        }),
      () => new Response(JSON.stringify({ id: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" }), { status: 201, headers: { "Content-Type": "application/json" } }),
    ];
    const fetch = async (request: Request) => {
      const at = performance.now();
      calls.push({ body: await request.text(), authorization: request.headers.get("authorization"), at });
      return answers[calls.length - 1]();
    };
    const { response } = await createAdmitClient({ baseUrl: "http://admit.test", token: "t", retry: { defaultDelayMs: 10 }, fetch }).POST("/v1/reservations", {
      body,
    });
    expect(response.status).toBe(201);
    expect(calls).toHaveLength(2);
    // Node's timers may fire up to a millisecond before their nominal time on performance.now().
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(995);
    expect(calls[1].body).toBe(calls[0].body);
    expect(JSON.parse(calls[0].body)).toEqual(body);
    expect(calls[1].authorization).toBe("Bearer t");
  });

  it("stops after `attempts`, and does not wait past maxElapsedMs", async () => {
    stub.reset({ status: 503 });
    expect((await client({ attempts: 3, defaultDelayMs: 10 }).GET("/health")).response.status).toBe(503);
    expect(stub.state.seen).toHaveLength(3);
    stub.reset({ status: 503, headers: { "Retry-After": "60" } });
    expect((await client({ maxElapsedMs: 5_000 }).GET("/health")).response.status).toBe(503);
    expect(stub.state.seen).toHaveLength(1);
  });

  it("never retries 409, 422 or 429: they are answers", async () => {
    for (const status of [409, 422, 429]) {
      stub.reset({ status, headers: { "Retry-After": "0" } }, { status: 201 });
      const { response, error } = await client().POST("/v1/reservations", { body, params: { header: { "Idempotency-Key": idempotencyKey() } } });
      expect(response.status).toBe(status);
      expect(error).toMatchObject({ status });
      expect(stub.state.seen).toHaveLength(1);
    }
  });

  it("retries a 504 only when the request carries an Idempotency-Key, and with the same key", async () => {
    stub.reset({ status: 504 }, { status: 201 });
    expect((await client().POST("/v1/reservations", { body })).response.status).toBe(504);
    expect(stub.state.seen).toHaveLength(1);

    stub.reset({ status: 504 }, { status: 201 });
    const key = idempotencyKey();
    const keyed = await client().POST("/v1/reservations", { body, params: { header: { "Idempotency-Key": key } } });
    expect(keyed.response.status).toBe(201);
    expect(stub.state.seen.map((s) => s.headers["idempotency-key"])).toEqual([key, key]);

    stub.reset({ status: 504 }, { status: 201 });
    const auto = createAdmitClient({ baseUrl: stub.state.url, idempotencyKeys: true, retry: { defaultDelayMs: 10 } });
    expect((await auto.POST("/v1/reservations", { body })).response.status).toBe(201);
    const [k1, k2] = stub.state.seen.map((s) => s.headers["idempotency-key"]);
    expect(k1).toMatch(/^[0-9a-f-]{36}$/);
    expect(k2).toBe(k1);
  });

  it("retry: false sends once", async () => {
    stub.reset({ status: 503, headers: { "Retry-After": "0" } }, { status: 200 });
    expect((await client(false).GET("/health")).response.status).toBe(503);
    expect(stub.state.seen).toHaveLength(1);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(retryAfterMs(new Date(0).toUTCString(), 7_000)).toBe(0);
  });
});
