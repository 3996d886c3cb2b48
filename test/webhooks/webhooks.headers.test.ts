// The delivery's headers, as the document states them and as the receiver applies them: one rule.
// Signed deliveries of the schemes that carry their id and type in headers, with each value either
// within the document's schema for its header or not (a tab, é, DEL): a delivery is stored exactly
// when every header it sends that the document constrains is within it. Handed to the app's fetch as
// a Request, as workerd hands it over (node's HTTP parser refuses DEL before the app runs).
import { describe, expect, it } from "vitest";
import { app } from "../../functions/index";
import { bindings, SUITE_BUDGET_MS, servedApp, sql } from "../support";
import { type SchemeName, SENDERS } from "./senders";
import { dbNowS } from "./webhooks.support";

const suite = servedApp("webhooks_headers");

async function deliver(source: string, d: { body: string; headers: Record<string, string> }) {
  const headers = new Headers({ "Content-Type": "application/json" });
  for (const [k, v] of Object.entries(d.headers)) headers.set(k, v);
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
  const res = await app.request(
    `/v1/webhooks/${source}`,
    { method: "POST", headers, body: d.body },
    bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS }),
    ctx,
  );
  return { status: res.status, json: await res.json() };
}

describe("a delivery's headers: the document's rule is the receiver's", () => {
  it("a signed delivery whose id or type header the document refuses is a 401 (the owner's GET naming it), nothing stored; else stored", async () => {
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const params = new Map<string, { pattern?: string; minLength?: number; maxLength?: number }>(
      doc.paths["/v1/webhooks/{source}"].post.parameters.filter((p: { in: string }) => p.in === "header").map((p: any) => [p.name.toLowerCase(), p.schema]),
    );
    const outside = (name: string, value: string) => {
      const s = params.get(name.toLowerCase());
      if (!s) return false;
      return (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) || value.length < (s.minLength ?? 0) || value.length > (s.maxLength ?? Infinity);
    };
    const seen: Array<{ case: string; refused: string | undefined; status: number; header?: string }> = [];
    let n = 0;
    for (const scheme of ["standard-webhooks", "github", "shopify"] as SchemeName[]) {
      const sender = SENDERS[scheme];
      const secret = sender.newSecret();
      const source = `headers-${scheme}`;
      expect((await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret })).status).toBe(201);
      for (const odd of ["tab\there", "caf\u00e9", "del\u007f"]) {
        for (const [id, type] of [
          [`${odd}-${++n}`, "ok.type"],
          [`ok-id-${++n}`, `${odd}.type`],
          [`ok-id-${++n}`, "ok.type"],
        ]) {
          const d = sender.sign([secret], id, type, {}, await dbNowS(suite.db));
          const refused = Object.entries(d.headers).find(([name, value]) => outside(name, value))?.[0];
          const res = await deliver(source, d);
          // The sender is told nothing of why (webhooks.refusals.test.ts); the source's owner is told which header.
          const header = res.status === 401 ? (await suite.api("GET", `/v1/webhooks/sources/${source}`)).json.recent_rejections[0]?.header : undefined;
          seen.push({ case: `${scheme} ${JSON.stringify([id, type])}`, refused, status: res.status, header });
        }
      }
    }
    expect(seen).toEqual(seen.map((s) => ({ ...s, status: s.refused ? 401 : 200, header: s.refused })));
    // Each scheme's header-carried id was refused at least once, and no refused delivery was stored.
    expect(new Set(seen.filter((s) => s.refused).map((s) => s.refused))).toEqual(
      new Set(["webhook-id", "X-GitHub-Delivery", "X-GitHub-Event", "X-Shopify-Webhook-Id", "X-Shopify-Topic"]),
    );
    const [{ stored }] = await sql<{ stored: number }>(suite.db, "SELECT count(*)::int AS stored FROM webhook_events WHERE source LIKE 'headers-%'");
    expect(stored).toBe(seen.filter((s) => !s.refused).length);
  });
});
