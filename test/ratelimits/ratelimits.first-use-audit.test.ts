// A semaphore that rateLimit({ concurrency }) creates on first use is a configuration write: it gets
// its audit row in the same statement, naming who created it (docs/api-keys.md, the audit log).
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { call } from "../../functions/http/rpc/call";
import { rateLimit } from "../../functions/ratelimits";
import { bindings, servedApp } from "../support";

const suite = servedApp("ratelimits_first_use_audit");

describe("rateLimit({ concurrency }) creating its semaphore", () => {
  it("a semaphore created on first use is audited, with who created it: rateLimit() in the host Worker, or the binding", async () => {
    const a = new Hono();
    a.use("*", rateLimit({ concurrency: { name: "mw-audit-host", permits: 2, ttl_ms: 30_000 } }));
    a.get("*", (c) => c.text("reached"));
    for (let i = 0; i < 2; i++) expect((await a.request("/", {}, bindings(suite.db))).status).toBe(200);
    const gated = (await call(bindings(suite.db), undefined, "rateLimitGate", { concurrency: { name: "mw-audit-rpc", permits: 3 } })) as { pass: boolean };
    expect(gated.pass).toBe(true);
    const rows = async (target: string) =>
      (await suite.api("GET", `/v1/audit?target=${target}`)).json.items.map((r: Record<string, any>) => [r.key.name, r.action, r.change]);
    // The second request found it: one row, written with the change.
    expect(await rows("mw-audit-host")).toEqual([["rateLimit()", "semaphores.put", { permits: 2, default_ttl_ms: 30_000, created_on_first_use: true }]]);
    expect(await rows("mw-audit-rpc")).toEqual([["binding", "semaphores.put", { permits: 3, default_ttl_ms: 60_000, created_on_first_use: true }]]);
  });
});
