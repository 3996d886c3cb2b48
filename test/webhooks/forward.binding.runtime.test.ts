// Forwarding to a second Worker over a Service Binding, in workerd: Admit (with a [[services]]
// binding FORWARD_TARGET) and the team's Worker (test/fixtures/forward-target/) in one wrangler dev.
// The target Worker verifies each request with the `standardwebhooks` library itself.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { ownSocket } from "../../dev/wrangler";
import { client, sql, until, workerSuite } from "../support";
import { deliver } from "./forward.support";
import { dbNowS, newSecret } from "./webhooks.support";

const FIXTURE = "test/fixtures/forward-target";
const suite = workerSuite("webhooks_forward_binding", { config: [`${FIXTURE}/admit.wrangler.toml`, `${FIXTURE}/wrangler.toml`] });
/** The secret the target Worker verifies with (its [vars]). */
const TARGET_SECRET = /FORWARD_SECRET = "([^"]+)"/.exec(readFileSync(join(ROOT, FIXTURE, "wrangler.toml"), "utf8"))![1];

/** What the bound Worker answers: the webhook-id, whether it verified, the path, how many requests of that id it has had. */
interface Seen {
  id: string;
  verified: boolean;
  path: string;
  times: number;
}

describe("forwarding over a Service Binding", () => {
  it("200 deliveries each sent twice → the bound Worker gets exactly 200 distinct webhook-ids, each verified there by standardwebhooks", async () => {
    const secret = newSecret();
    const put = await suite.api("PUT", "/v1/webhooks/sources/rt-bound", {
      secret,
      forward: { binding: "FORWARD_TARGET", path: "/hooks/billing", secret: TARGET_SECRET },
    });
    expect(put.status, put.text).toBe(201);
    expect(put.json.forward).toMatchObject({ binding: "FORWARD_TARGET", path: "/hooks/billing" });
    const anon = client(ownSocket(suite.worker), null);
    const now = await dbNowS(suite.db);
    const answers: Array<{ status: number; json: { id: string } }> = [];
    for (let round = 0; round < 20; round++) {
      // 10 events a round, each sent twice at once.
      const batch = Array.from({ length: 20 }, (_, j) => round * 10 + (j % 10));
      answers.push(...(await Promise.all(batch.map((i) => deliver(anon, "rt-bound", secret, `msg-${i}`, { type: "t", data: { i } }, now)))));
    }
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const stored = new Set(answers.map((a) => a.json.id));
    expect(stored.size).toBe(200);
    await until(async () => (await delivered()) === 200, 120_000, "200 delivered over the binding");
    // What the bound Worker answered to each attempt (kept by Admit as the attempt's response).
    const rows = await sql<{ event_id: string; status: number; response: string }>(
      suite.db,
      "SELECT event_id::text, status, response FROM webhook_attempts WHERE source = 'rt-bound' ORDER BY event_id, n",
    );
    const seen = rows.map((r) => ({ event: r.event_id, status: r.status, ...(JSON.parse(r.response) as Seen) }));
    expect(seen).toHaveLength(200);
    expect(new Set(seen.map((s) => s.id))).toEqual(stored);
    expect(seen.filter((s) => s.id !== s.event || !s.verified || s.status !== 200 || s.times !== 1 || s.path !== "/hooks/billing")).toEqual([]);
  });
});

async function delivered(): Promise<number> {
  const items = (await suite.api("GET", "/v1/webhooks/rt-bound/events?limit=1000")).json.items as Array<{ delivery: { state: string } }>;
  return items.filter((e) => e.delivery.state === "delivered").length;
}
