// The document is the contract: answers at its edges — a reused or in-use Idempotency-Key, a method
// or path no route has, a value the database refuses, over-long keys and parameters — each checked
// against /openapi.json with the same validator the fuzz suite uses (test/support/contract.ts), and
// the document's own completeness (operationId, tags, servers, licence, the webhook receiver's
// headers and body).
import { beforeAll, describe, expect, it } from "vitest";
import { bindings, servedApp, whileHolding, withServedApp } from "../support";
import { contract } from "../support/contract";

const suite = servedApp("contract");
let doc: any;
let check: ReturnType<typeof contract>;
beforeAll(async () => {
  doc = (await suite.api("GET", "/openapi.json")).json;
  check = contract(doc);
});

const asReceived = (r: { status: number; headers: Headers; text: string }) => ({ status: r.status, type: r.headers.get("content-type"), text: r.text });
const uniq = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe("Idempotency-Key answers are documented per route", () => {
  it("a reused key → 422 idempotency-key-reused with the `errors` list every write documents for 422", async () => {
    const k = uniq("reused");
    const first = await suite.api("POST", "/v1/invoices/generate", { subscription_id: uniq("sub"), kind: "usage" }, { "Idempotency-Key": k });
    expect(first.status).toBe(201);
    const res = await suite.api("POST", "/v1/invoices/generate", { subscription_id: uniq("sub"), kind: "recurring" }, { "Idempotency-Key": k });
    expect(res.status).toBe(422);
    expect(res.json.type).toBe("/problems/idempotency-key-reused");
    expect(res.json.errors).toEqual([expect.objectContaining({ in: "header", path: "Idempotency-Key" })]);
    expect(check("POST", "/v1/invoices/generate", asReceived(res))).toBeUndefined();
  });

  it("a key still in use → 409 idempotency-key-in-use, documented on routes whose own 409 requires other fields (key, short)", async () => {
    const routes = [
      { template: "/v1/invoices/generate", path: "/v1/invoices/generate", body: { subscription_id: "s", kind: "usage" } },
      { template: "/v1/inventory/{item}/bookings", path: "/v1/inventory/room/bookings", body: { check_in: "2041-01-01", check_out: "2041-01-02" } },
      { template: "/v1/reservations/{id}", path: "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e", method: "DELETE" },
    ];
    for (const r of routes) {
      const method = r.method ?? "POST";
      const k = uniq("in-use");
      const claim =
        "INSERT INTO idempotency_keys (caller, key, request_method, request_path, request_hash, expires_at) VALUES ('root', $1, $2, $3, 'x', now() + interval '1 h')";
      await whileHolding(suite.db, claim, [k, method, r.path], () =>
        withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
          const res = await api(method, r.path, r.body, { "Idempotency-Key": k });
          expect(res.status, r.path).toBe(409);
          expect(res.json.type).toBe("/problems/idempotency-key-in-use");
          expect(check(method, r.template, asReceived(res))).toBeUndefined();
        }),
      );
    }
  });

  it("a method the path does not have, with a used key → 405 with Allow, a path no route has → 404 (the route is matched before the key is looked at)", async () => {
    const k = uniq("used");
    expect(
      (
        await suite.api(
          "POST",
          "/v1/reservations",
          { resource: uniq("r"), holder: "h", start: "2041-01-01T00:00:00Z", end: "2041-01-02T00:00:00Z" },
          { "Idempotency-Key": k },
        )
      ).status,
    ).toBe(201);
    for (const [method, path, status, allow] of [
      ["PUT", "/v1/reservations", 405, "GET, HEAD, POST, OPTIONS"],
      ["POST", "/v1/reservations/x", 405, "GET, HEAD, DELETE, OPTIONS"],
      ["PATCH", "/v1/locks/x", 405, "GET, HEAD, OPTIONS"],
      ["DELETE", "/v1/nothing-here", 404, null],
    ] as const) {
      const res = await suite.api(method, path, { a: 1 }, { "Idempotency-Key": k });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
    // And a key no route will ever store is not checked either: 405, not 422.
    expect((await suite.api("PUT", "/v1/reservations", { a: 1 }, { "Idempotency-Key": "k".repeat(300) })).status).toBe(405);
  });

  it("a body to a method/path with no route → 405/404, not the body guard's 413/415/422 (the route is matched first)", async () => {
    const res415 = await suite.api("PUT", "/v1/reservations", "x", { "Content-Type": "text/plain" });
    const res422 = await suite.api("POST", "/v1/locks//acquire", "[".repeat(100) + "]".repeat(100));
    const res413 = await suite.api("DELETE", "/v1/nothing-here", JSON.stringify({ pad: "a".repeat(70_000) }));
    expect(res415.status).toBe(405);
    for (const res of [res422, res413]) expect(res.status).toBe(404);
    for (const res of [res415, res422, res413]) {
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("a value the database refuses (a NUL in a JSON string, which jsonb cannot store) → 422 with `errors`, as documented", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/contract-p", { algorithm: "fixed_window", limit: 5, window_ms: 60_000, log: true });
    const res = await suite.api("POST", "/v1/ratelimits/check", '{"policy":"contract-p","key":"k","info":{"a":"\\u0000"}}');
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(/database rejected/);
    expect(res.json.errors).toHaveLength(1);
    expect(check("POST", "/v1/ratelimits/check", asReceived(res))).toBeUndefined();
    // A lone surrogate in an object key is refused before the database: it has no JSON form.
    const lone = await suite.api("POST", "/v1/ratelimits/check", '{"policy":"contract-p","key":"k","info":{"\\ud800":1}}');
    expect(lone.status).toBe(422);
    expect(lone.json.errors).toEqual([expect.objectContaining({ in: "body", path: "info", message: expect.stringContaining("Lone surrogate") })]);
    expect(check("POST", "/v1/ratelimits/check", asReceived(lone))).toBeUndefined();
  });

  it("a 256-character key and path parameters over 200 characters → 422, documented for those operations", async () => {
    const long = "y".repeat(201);
    const cases: Array<[string, string, string, unknown?, Record<string, string>?]> = [
      ["DELETE", "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e", "/v1/reservations/{id}", undefined, { "Idempotency-Key": "k".repeat(256) }],
      [
        "POST",
        "/v1/inventory/room/bookings/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e/confirm",
        "/v1/inventory/{item}/bookings/{id}/confirm",
        undefined,
        { "Idempotency-Key": "k".repeat(256) },
      ],
      ["GET", `/v1/semaphores/${long}`, "/v1/semaphores/{name}"],
      ["GET", `/v1/inventory/${long}/bookings/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e`, "/v1/inventory/{item}/bookings/{id}"],
      ["POST", `/v1/inventory/${long}/bookings/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e/confirm`, "/v1/inventory/{item}/bookings/{id}/confirm"],
      ["DELETE", `/v1/inventory/${long}/bookings/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e`, "/v1/inventory/{item}/bookings/{id}"],
    ];
    for (const [method, path, template, body, headers] of cases) {
      const res = await suite.api(method, path, body, headers);
      expect(res.status, `${method} ${template}`).toBe(422);
      expect(check(method, template, asReceived(res)), `${method} ${template}`).toBeUndefined();
    }
  });
});

describe("the document itself", () => {
  it("every operation has a unique operationId and defined tags; servers, tags with descriptions and a licence are given", () => {
    const ids: string[] = [];
    const tags = new Set<string>(
      (doc.tags ?? []).map((t: { name: string; description?: string }) => {
        expect(t.description, t.name).toBeTruthy();
        return t.name;
      }),
    );
    for (const item of Object.values<Record<string, any>>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(op.operationId).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
        ids.push(op.operationId);
        for (const t of op.tags ?? []) expect(tags.has(t), t).toBe(true);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.info.license?.name).toBeTruthy();
  });

  it("the webhook receiver documents every scheme's signature headers (none required of every delivery: the source's scheme decides), its raw JSON body, and no bearer token", () => {
    const op = doc.paths["/v1/webhooks/{source}"].post;
    const headers = (op.parameters ?? []).filter((p: any) => p.in === "header");
    expect(headers.every((p: any) => p.required === false)).toBe(true);
    expect(headers.map((p: any) => p.name)).toEqual([
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
      "Stripe-Signature",
      "X-Hub-Signature-256",
      "X-GitHub-Delivery",
      "X-GitHub-Event",
      "X-Shopify-Hmac-Sha256",
      "X-Shopify-Webhook-Id",
      "X-Shopify-Event-Id",
      "X-Shopify-Topic",
      "X-Slack-Signature",
      "X-Slack-Request-Timestamp",
    ]);
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(op.requestBody.content)).toEqual(["application/json"]);
    expect(op.security).toEqual([]);
  });

  it("every write documents 401, 413, 415, 422, 503 and the Idempotency-Key's 409 (not the forward-auth check); every operation with parameters documents 422", () => {
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const statuses = Object.keys(op.responses);
        const where = `${method} ${path}`;
        expect(statuses, where).toContain("503");
        if ((op.parameters ?? []).some((p: any) => p.in === "path" || p.in === "query")) expect(statuses, where).toContain("422");
        if (method === "get") continue;
        for (const s of ["413", "415", "422"]) expect(statuses, where).toContain(s);
        if (path === "/v1/webhooks/{source}") continue;
        expect(statuses, where).toContain("401");
        // The forward-auth check takes no Idempotency-Key (a decision is never replayed): no 409 for it.
        if (path === "/v1/authz") expect(op.responses["409"], where).toBeUndefined();
        else expect(JSON.stringify(op.responses["409"]), where).toContain("IdempotencyKeyInUse");
      }
    }
  });
});
