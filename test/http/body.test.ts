// The body guard (functions/http/body.ts) on its own, in front of one echo route: what reaches a
// handler is JSON, at most MAX_BODY_BYTES and MAX_JSON_DEPTH deep; everything else is a problem.
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../../functions/core/context";
import { onError } from "../../functions/core/errors";
import { jsonBodies, jsonDepth, MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../functions/http/body";

const app = new Hono<AppEnv>();
app.onError(onError);
app.use("*", jsonBodies());
app.post("/echo", async (c) => c.json(await c.req.json()));
app.get("/echo", (c) => c.text("no body needed"));

// Content-Length as a client sends it (a Request built in-process has none until it is sent).
const post = (body: string, type = "application/json", path = "/echo") =>
  app.request(path, { method: "POST", body, headers: { "Content-Type": type, "Content-Length": String(Buffer.byteLength(body)) } });
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("jsonBodies()", () => {
  it("passes JSON (and +json types) through to the handler", async () => {
    const res = await post('{"a":[1,{"b":"]]]"}]}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: [1, { b: "]]]" }] });
    expect((await post("{}", "application/merge-patch+json")).status).toBe(200);
  });

  it("415 for a body that is not declared JSON", async () => {
    const res = await post("a=1", "application/x-www-form-urlencoded");
    expect(res.status).toBe(415);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await res.json()).type).toBe("/problems/unsupported-media-type");
  });

  it(`413 for a body over ${MAX_BODY_BYTES} bytes`, async () => {
    const res = await post(JSON.stringify({ pad: "x".repeat(MAX_BODY_BYTES) }));
    expect(res.status).toBe(413);
    expect((await res.json()).type).toBe("/problems/payload-too-large");
  });

  it(`422 naming the limit for JSON nested deeper than ${MAX_JSON_DEPTH}, and the limit itself passes`, async () => {
    expect((await post(nested(MAX_JSON_DEPTH))).status).toBe(200);
    const res = await post(nested(MAX_JSON_DEPTH + 1));
    expect(res.status).toBe(422);
    const p = await res.json();
    expect(p.type).toBe("/problems/validation");
    expect(p.errors).toEqual([{ in: "body", path: "(root)", message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  });

  it("a request without a body, or to no route, is not looked at", async () => {
    expect((await app.request("/echo")).status).toBe(200);
    expect((await post("not json", "text/plain", "/nowhere")).status).toBe(404);
  });

  it("jsonDepth skips brackets inside strings, escaped quotes included", () => {
    expect(jsonDepth(new TextEncoder().encode('{"a":"[[[\\"[["}'))).toBe(1);
    expect(jsonDepth(new TextEncoder().encode(nested(5)))).toBe(5);
    expect(jsonDepth(new TextEncoder().encode('"plain"'))).toBe(0);
  });

  it("a body's text and its UTF-8 bytes read the same depth, multi-byte characters included; the handler gets the text as sent", async () => {
    for (const body of ['{"a":"é[[","b":[["🚀"]]}', `{"k":"${"ü".repeat(40)}","v":[{"w":"\\"}]}`, nested(7), '"日本語"']) {
      expect(jsonDepth(body), body).toBe(jsonDepth(new TextEncoder().encode(body)));
    }
    const res = await post('{"name":"café 🚀","list":["ß"]}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "café 🚀", list: ["ß"] });
  });

  it(`a chunked body (no Content-Length) is counted as it arrives: over ${MAX_BODY_BYTES} bytes 413, within it passes`, async () => {
    const chunked = (text: string) =>
      app.request("/echo", {
        method: "POST",
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            const bytes = new TextEncoder().encode(text);
            for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
            controller.close();
          },
        }),
        duplex: "half",
        headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
      } as RequestInit);
    const over = await chunked(JSON.stringify({ pad: "x".repeat(MAX_BODY_BYTES) }));
    expect(over.status).toBe(413);
    expect((await over.json()).type).toBe("/problems/payload-too-large");
    const within = await chunked(JSON.stringify({ pad: "y".repeat(20_000) }));
    expect(within.status).toBe(200);
    expect((await within.json()).pad).toHaveLength(20_000);
  });

  it("a body whose connection closes mid-way (the read fails) → 400, the handler never runs, nothing logged as an error", async () => {
    // As workerd's request stream does when the client hangs up (test/http/disconnect.runtime.test.ts: the real thing).
    for (const transfer of [{ "Content-Length": "100" }, { "Transfer-Encoding": "chunked" }] as Record<string, string>[]) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"a'));
          controller.error(new Error("Network connection lost."));
        },
      });
      const errors: unknown[] = [];
      const spy = vi.spyOn(console, "error").mockImplementation((...args) => void errors.push(args));
      try {
        const res = await app.request("/echo", {
          method: "POST",
          body,
          duplex: "half",
          headers: { "Content-Type": "application/json", ...transfer },
        } as RequestInit);
        expect(res.status, JSON.stringify(transfer)).toBe(400);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect((await res.json()).detail).toMatch(/connection closed/);
      } finally {
        spy.mockRestore();
      }
      expect(errors).toEqual([]);
    }
  });
});
