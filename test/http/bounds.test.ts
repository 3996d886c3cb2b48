// What a client sends that Postgres cannot hold is the client's error: a 422 naming where it came
// from, before the database is asked, never a 500. Every list's `cursor` (each operation of the
// document that takes one, so a new list is covered when it lands) under cursors of every shape a
// list gives, with parts out of what their columns hold. A webhook delivery's bytes are stored as
// sent (json): numbers beyond Postgres's numeric stay text there, never reaching numeric.
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../../functions/core/validation";
import { servedApp } from "../support";
import { dbNowS, newSecret, signedHeaders } from "../webhooks/webhooks.support";

const suite = servedApp("bounds");
const UUID = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
const AT = "2021-01-01T00:00:00Z";
/** One past bigint's largest value. */
const INT8_OVER = "9223372036854775808";

/** Cursors no list gave: each part out of range for the column it stands for in some list's cursor. */
const CRAFTED = [
  encodeCursor([AT, INT8_OVER]),
  encodeCursor([INT8_OVER, "k"]),
  encodeCursor(["99999999999999999999", "k"]),
  encodeCursor(["1", UUID]),
  encodeCursor(["1", "1"]),
  encodeCursor(["k", "1"]),
  encodeCursor(["-271821-04-20T00:00:00.000Z", UUID]),
  encodeCursor(["-271821-04-20T00:00:00.000Z", "1"]),
  encodeCursor(["k", "-271821-04-20T00:00:00.000Z"]),
  encodeCursor(["2021-02-30T00:00:00Z", UUID]),
  encodeCursor(["a\u0000b", AT]),
  encodeCursor(["a\ud800b", AT]),
  encodeCursor(["1", "a\u0000b"]),
  INT8_OVER,
  "99999999999999999999",
];

describe("a cursor no list gave", () => {
  it("every list that takes a cursor: 200 or 422 naming `cursor`, never 500; a bigint id past its range is 422", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/bp", { algorithm: "fixed_window", limit: 5, window_ms: 60_000 })).status).toBe(201);
    expect((await suite.api("PUT", "/v1/webhooks/sources/bs", { secret: newSecret() })).status).toBe(201);
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const values: Record<string, string> = { name: "bp", source: "bs", resource: "br", list: "deny" };
    const lists: string[] = [];
    for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
      const params: Array<{ name: string; in: string; required?: boolean }> = item.get?.parameters ?? [];
      if (!params.some((p) => p.in === "query" && p.name === "cursor")) continue;
      const path = template.replaceAll(/\{(.+?)\}/g, (_m, p: string) => values[p]);
      const required = params.filter((p) => p.in === "query" && p.required).map((p) => `${p.name}=${values[p.name]}&`);
      lists.push(`${path}?${required.join("")}`);
    }
    expect(lists.length).toBeGreaterThanOrEqual(10);
    const wrong: string[] = [];
    for (const list of lists) {
      for (const cursor of CRAFTED) {
        const res = await suite.api("GET", `${list}cursor=${encodeURIComponent(cursor)}`);
        const named = res.status === 422 && res.json.errors?.some((e: { in: string; path: string }) => e.in === "query" && e.path === "cursor");
        if (res.status !== 200 && !named) wrong.push(`${list} ${JSON.stringify(cursor)}: ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
    const audit = await suite.api("GET", `/v1/audit?cursor=${encodeCursor([AT, INT8_OVER])}`);
    expect(audit.status, audit.text).toBe(422);
    expect(audit.json.errors).toEqual([{ in: "query", path: "cursor", message: "invalid cursor" }]);
    // The largest id bigint holds is a cursor like any other.
    expect((await suite.api("GET", `/v1/audit?cursor=${encodeCursor([AT, "9223372036854775807"])}`)).status).toBe(200);
  });
});

describe("numbers in a webhook delivery, stored as sent", () => {
  it("a number beyond Postgres's numeric is stored (payload is json, not jsonb), listed and claimed: 200, never 500", async () => {
    const secret = newSecret();
    expect((await suite.api("PUT", "/v1/webhooks/sources/huge", { secret })).status).toBe(201);
    const now = await dbNowS(suite.db);
    const body = `{"type":"t","data":{"amount":1e999999,"tiny":1e-20000}}`;
    const res = await suite.api("POST", "/v1/webhooks/huge", body, signedHeaders([secret], "msg_huge", now, body));
    expect(res.status, res.text).toBe(200);
    const listed = await suite.api("GET", "/v1/webhooks/huge/events");
    expect(listed.status, listed.text).toBe(200);
    const claimed = await suite.api("POST", "/v1/webhooks/huge/events/claim", {});
    expect(claimed.status, claimed.text).toBe(200);
    for (const r of [listed, claimed]) expect(r.text).toContain('"webhook_id":"msg_huge"');
  });
});
