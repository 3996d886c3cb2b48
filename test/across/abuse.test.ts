// Abuse: every /v1 route refuses callers without the token (enumerated from the OpenAPI document,
// so a new route cannot forget auth); the one route authenticated otherwise — the signed webhook
// receiver — refuses unsigned deliveries instead; and keys with `/`, `%2F`, unicode or SQL in them
// are stored and matched verbatim, for every capability (test/support/capabilities.ts).
import { beforeAll, describe, expect, it, vi } from "vitest";
import { client, servedApp, sql, TOKEN } from "../support";
import { CAPABILITIES, delivery, webhookSecret } from "../support/capabilities";

const suite = servedApp("abuse");

interface Op {
  method: string;
  path: string;
  security?: unknown[];
}
const ops: Op[] = [];

/** Routes under /v1 that authenticate by signature, not by the bearer token. */
const SIGNED = new Set(["POST /v1/webhooks/{source}"]);

beforeAll(async () => {
  const doc = (await suite.api("GET", "/openapi.json")).json;
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) if (path.startsWith("/v1/")) ops.push({ method: method.toUpperCase(), path, security: op.security });
  }
});

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "abuse");
const body = (method: string) => (method === "GET" || method === "DELETE" ? undefined : {});

/**
 * The rows of every table that holds data, as one string. The metric tables are left out: a refused
 * credential is counted there on purpose (admit_auth_failures_total, docs/observability.md).
 */
async function rowCounts(): Promise<string> {
  const tables = await sql<{ t: string }>(
    suite.db,
    "SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'admit_migrations' AND table_name NOT LIKE 'metric\\_%' ORDER BY 1",
  );
  if (!tables.length) return "";
  const [{ c }] = await sql<{ c: string }>(suite.db, `SELECT concat_ws(',', ${tables.map(({ t }) => `(SELECT count(*) FROM ${t})`).join(", ")}) AS c`);
  return c;
}

describe("authentication on every /v1 route of the OpenAPI document", () => {
  it("finds the routes, and only the signed webhook receiver opts out of the bearer token", () => {
    expect(ops.length).toBeGreaterThanOrEqual(5);
    const open = ops.filter((o) => Array.isArray(o.security) && o.security.length === 0).map((o) => `${o.method} ${o.path}`);
    for (const o of open) expect(SIGNED, `${o} is documented without auth`).toContain(o);
  });

  it("missing, wrong, truncated, differently-schemed or query-string tokens → 401 problem+json with WWW-Authenticate; nothing written", async () => {
    const before = await rowCounts();
    const attempts: Array<[string, Record<string, string>, string]> = [
      ["none", {}, ""],
      ["wrong", { Authorization: `Bearer ${TOKEN}x` }, ""],
      ["truncated", { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }, ""],
      ["empty bearer", { Authorization: "Bearer " }, ""],
      ["basic", { Authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` }, ""],
      ["token without scheme", { Authorization: TOKEN }, ""],
      ["two tokens", { Authorization: `Bearer ${TOKEN} ${TOKEN}` }, ""],
      ["in the query string", {}, `?access_token=${TOKEN}&token=${TOKEN}`],
      ["in a cookie", { Cookie: `token=${TOKEN}; Authorization=Bearer ${TOKEN}` }, ""],
      ["sql", { Authorization: "Bearer ' OR '1'='1" }, ""],
    ];
    for (const op of ops.filter((o) => !SIGNED.has(`${o.method} ${o.path}`))) {
      for (const [what, headers, query] of attempts) {
        const res = await client(suite.server.url, null)(op.method, concrete(op.path) + query, body(op.method), headers);
        const label = `${op.method} ${op.path} with ${what}`;
        expect(res.status, label).toBe(401);
        expect(res.headers.get("content-type"), label).toBe("application/problem+json");
        expect(res.headers.get("www-authenticate"), label).toMatch(/^Bearer/);
        expect(res.text, label).not.toContain(TOKEN);
      }
    }
    expect(await rowCounts()).toBe(before);
  });

  it("the signed webhook receiver refuses unsigned or wrongly signed deliveries with 401, bearer token or not", async () => {
    const signed = ops.filter((o) => SIGNED.has(`${o.method} ${o.path}`));
    expect(signed.length).toBe(SIGNED.size);
    const before = await rowCounts();
    for (const op of signed) {
      const path = concrete(op.path);
      const payload = { type: "x", data: {} };
      const unsigned = await client(suite.server.url, null)(op.method, path, payload);
      const withBearer = await suite.api(op.method, path, payload);
      const forged = await client(suite.server.url, null)(op.method, path, payload, {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      });
      for (const res of [unsigned, withBearer, forged]) {
        expect(res.status, op.path).toBe(401);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
      }
    }
    expect(await rowCounts()).toBe(before);
  });
});

// Each key is written once (its own slot), then looked up by itself and by its near neighbours:
// a key is found under exactly its own bytes — no decoding of %2F, no Unicode normalisation, no
// LIKE wildcards, no SQL.
const NASTY: Array<[string, string[]]> = [
  ["a/b", ["a%2Fb", "a"]],
  ["a%2Fb", ["a/b"]],
  ["%2F", ["/"]],
  ["%", ["x", "%25"]],
  ["_", ["a"]],
  ["é", ["e\u0301", "É"]],
  ["e\u0301", ["é"]],
  ["ü/ñ 😀", ["u/n 😀"]],
  ["'; DROP TABLE reservations; --", ["'"]],
  ["Robert'); DELETE FROM reservations; --", ["Robert"]],
  ["$1", ["$2"]],
  ["\\", ["\\\\"]],
  [" lead", ["lead"]],
  ["trail ", ["trail"]],
  ["a+b", ["a b"]],
  ["?q=1&x=2", ["?q=1"]],
  ["..", ["."]],
  ["*", ["a"]],
];

describe.each(CAPABILITIES.map((c) => [c.name, c] as const))("%s: keys stored and matched verbatim", (_name, cap) => {
  it("each nasty key is stored as sent and found under exactly itself", async () => {
    // "." and ".." cannot be a path segment at all: every WHATWG URL parser (fetch included) resolves
    // them, even percent-encoded. Such keys are reachable where the key travels in a query or body only,
    // and are refused (422) where the key is also a path segment of another route (dotKeysRefused).
    const addressable = ({ call }: { call: { path: string } }) =>
      !call.path
        .split("?")[0]
        .split("/")
        .some((seg) => /^(\.|%2e){1,2}$/i.test(seg));
    const usable = NASTY.filter(([key]) => [cap.write(key, "t", 0), ...(cap.prepare?.(key) ?? [])].every((call) => addressable({ call }))).filter(
      ([key]) => (!cap.keyPattern || cap.keyPattern.test(key)) && !(cap.dotKeysRefused && /^\.{1,2}$/.test(key)),
    );
    if (cap.dotKeysRefused) {
      for (const key of [".", ".."]) {
        const w = cap.write(key, "refused-dot", 0);
        const res = await suite.api(w.method, w.path, w.body, w.headers);
        expect(res.status, `${key}: ${res.text}`).toBe(422);
        expect(res.json.errors[0].message).toMatch(/must not be "\." or "\.\."/);
        expect(await cap.storedKey((t, p) => sql(suite.db, t, p), "refused-dot")).toBeUndefined();
      }
    }
    // A capability that restricts its keys by design (webhook sources: [A-Za-z0-9._-]) is checked
    // with the few nasty keys it accepts, and must refuse the others with a 4xx, never store them.
    if (!cap.keyPattern) expect(usable.length).toBeGreaterThan(NASTY.length - 3);
    for (const [key] of NASTY.filter(([k]) => cap.keyPattern && !cap.keyPattern.test(k))) {
      for (const call of [...(cap.prepare?.(key) ?? []), cap.write(key, "refused-key", 0)]) {
        const res = await suite.api(call.method, call.path, call.body, call.headers);
        expect(res.status, `${JSON.stringify(key)} ${call.path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${JSON.stringify(key)} ${call.path}`).toBeLessThan(500);
      }
    }
    const tags = usable.map(([_key], i) => `verbatim-${cap.name}-${i}`);
    for (const [i, [key]] of usable.entries()) {
      for (const call of cap.prepare?.(key) ?? []) expect((await suite.api(call.method, call.path, call.body)).status, call.path).toBeLessThan(300);
      const w = cap.write(key, tags[i], i);
      const res = await suite.api(w.method, w.path, w.body, w.headers);
      expect(cap.ok, `${JSON.stringify(key)}: ${res.status} ${res.text}`).toContain(res.status);
      expect(await cap.storedKey((t, p) => sql(suite.db, t, p), tags[i]), JSON.stringify(key)).toBe(key);
    }
    for (const [i, [key, neighbours]] of usable.entries()) {
      for (const { call, found } of cap.lookups(key, tags[i], i).filter(addressable)) {
        const res = await suite.api(call.method, call.path);
        expect(res.status, `${call.path}`).toBe(200);
        expect(found(res.json), `${JSON.stringify(key)} not found by ${call.path}`).toBe(true);
      }
      for (const other of neighbours) {
        for (const { call, found } of cap.lookups(other, tags[i], i).filter(addressable)) {
          const res = await suite.api(call.method, call.path);
          expect(res.status, call.path).toBeLessThan(500);
          expect(res.status === 200 && found(res.json), `${JSON.stringify(key)} found under ${JSON.stringify(other)} by ${call.path}`).toBe(false);
        }
      }
    }
    // The SQL-looking keys did nothing but be stored.
    for (const t of cap.tables) expect(await sql(suite.db, "SELECT to_regclass($1) IS NOT NULL AS ok", [t])).toEqual([{ ok: true }]);
  });
});

describe("webhook secrets", () => {
  it("are never returned, echoed in an error, or logged — whatever is sent", async () => {
    const source = "secret-probe";
    const secret = webhookSecret(source);
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
    );
    const texts: string[] = [];
    try {
      const put = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { secret, tolerance_s: 300 });
      expect(put.status).toBe(201);
      texts.push(put.text, JSON.stringify([...put.headers]));
      // Replaced with itself, read back, listed, a signed delivery, a forged one, a claim, a list.
      for (const [method, path, body] of [
        ["PUT", `/v1/webhooks/sources/${source}`, { secret, tolerance_s: 60 }],
        ["GET", `/v1/webhooks/sources/${source}`, undefined],
        ["POST", `/v1/webhooks/${source}/events/claim`, { limit: 10, visibility_ms: 1000 }],
        ["GET", `/v1/webhooks/${source}/events`, undefined],
        // Invalid secrets: the 422 must not repeat what was sent.
        ["PUT", `/v1/webhooks/sources/${source}`, { secret: secret + "!", tolerance_s: 60 }],
        ["PUT", `/v1/webhooks/sources/${source}`, { secret: secret.slice(0, 20), tolerance_s: 60 }],
        ["PUT", `/v1/webhooks/sources/${source}`, { secret, tolerance_s: -1 }],
      ] as const) {
        const res = await suite.api(method, path, body);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        texts.push(res.text, JSON.stringify([...res.headers]));
      }
      const good = delivery(source, "msg_secret_probe", JSON.stringify({ type: "x", data: {} }));
      const forged = { ...good, headers: { ...good.headers, "webhook-signature": "v1,AAAA" } };
      for (const d of [good, forged]) {
        const res = await client(suite.server.url, null)(d.method, d.path, d.body, d.headers);
        texts.push(res.text, JSON.stringify([...res.headers]));
      }
      // (/docs is a static HTML shell that loads /openapi.json: checking the document covers it.)
      texts.push((await suite.api("GET", "/openapi.json")).text);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const base64 = secret.slice("whsec_".length);
    for (const t of [...texts, ...logged]) {
      expect(t).not.toContain(base64);
      expect(t).not.toContain(base64.slice(0, 16));
    }
  });
});
