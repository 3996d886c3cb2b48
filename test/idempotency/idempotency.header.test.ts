// The Idempotency-Key header's rule, as the document states it and as the server applies it: one
// rule. Each value is handed to the app's fetch as a Request, as workerd hands it over after reading
// it off the wire (the fuzzer's 201s came over wrangler dev): node's own HTTP parser refuses DEL
// before the app runs, and fetch() will not send it, so the wire cannot carry every value here.
import { describe, expect, it } from "vitest";
import { app } from "../../functions/index";
import { bindings, SUITE_BUDGET_MS, servedApp, TOKEN } from "../support";

const suite = servedApp("idempotency_header");

let n = 0;
function booking() {
  n += 1;
  return { resource: `idem-header/${n}`, holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
}

const unique = () => Math.random().toString(36).slice(2);

/** POST /v1/reservations in-process with this exact Idempotency-Key. */
async function post(idempotencyKey: string): Promise<{ status: number; json: any }> {
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {}, props: {} };
  const headers = new Headers({ Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" });
  headers.set("Idempotency-Key", idempotencyKey);
  const res = await app.request(
    "/v1/reservations",
    { method: "POST", headers, body: JSON.stringify(booking()) },
    bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS }),
    ctx,
  );
  const json = await res.json();
  await Promise.allSettled(pending);
  return { status: res.status, json };
}

describe("Idempotency-Key: the document's rule is the server's", () => {
  it("a value the document refuses is a 422 naming the header; one it allows is taken", async () => {
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const param = doc.paths["/v1/reservations"].post.parameters.find((p: { name: string }) => p.name === "Idempotency-Key");
    const { pattern, minLength, maxLength } = param.schema as { pattern: string; minLength: number; maxLength: number };
    const documented = (v: string) => v.length >= minLength && v.length <= maxLength && new RegExp(pattern).test(v);
    const values = [
      `tab\tinside-${unique()}`,
      `caf\u00e9-${unique()}`,
      `del\u007f-${unique()}`,
      `nbsp\u00a0inside-${unique()}`,
      `space inside-${unique()}`,
      `~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}-${unique()}`,
      "x".repeat(255 - 13) + unique().padEnd(13, "0").slice(0, 13),
    ];
    const seen = [];
    for (const value of values) {
      const res = await post(value);
      seen.push({ value, documented: documented(value), status: res.status, errors: res.json?.errors });
    }
    expect(seen.map((s) => [JSON.stringify(s.value), s.documented, s.status])).toEqual(
      seen.map((s) => [JSON.stringify(s.value), s.documented, s.documented ? 201 : 422]),
    );
    for (const s of seen.filter((x) => !x.documented)) {
      expect(s.errors).toEqual([{ in: "header", path: "Idempotency-Key", message: expect.stringContaining("visible ASCII") }]);
    }
    expect(seen.filter((s) => s.documented).length).toBe(3);
  });
});
