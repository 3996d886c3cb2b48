// Every scheme under a sender's duplicate storm, with real simultaneous HTTP against real Postgres:
// 200 deliveries at once of 20 distinct events, each sent 10 times (interleaved, each send signed
// anew by the sender's library, a second apart where the scheme signs a timestamp, as retries are)
// → 20 events stored, every delivery answered 200 (exactly 20 first answers, 180 Idempotent-Replayed),
// and 4 consumers claiming at once hand out each event exactly once.
import { describe, expect, it } from "vitest";
import { client, servedApp, sql } from "../support";
import { SCHEMES, SENDERS, senderId } from "./senders";
import { dbNowS } from "./webhooks.support";

const suite = servedApp("webhooks_schemes_burst");

describe.each(SCHEMES.map((s) => [s] as const))("%s: 200 simultaneous deliveries of 20 events × 10", (scheme) => {
  it("→ 20 stored, all 200, each event claimed once", async () => {
    const sender = SENDERS[scheme];
    const secret = sender.newSecret();
    const source = `burst-${scheme}`;
    expect((await suite.api("PUT", `/v1/webhooks/sources/${source}`, { ...sender.settings, secret })).status).toBe(201);
    const now = await dbNowS(suite.db);
    const ids = Array.from({ length: 20 }, (_, i) => senderId(scheme, i));
    // Interleaved: round r sends every event once, so copies of one event are 20 requests apart.
    const deliveries = [];
    for (let r = 0; r < 10; r++) {
      for (const [i, id] of ids.entries()) deliveries.push({ id, d: await sender.deliver([secret], id, `kind.${i % 3}`, { i }, now - r) });
    }
    const anon = client(suite.server.url, null);
    const answers = await Promise.all(deliveries.map(({ d }) => anon("POST", `/v1/webhooks/${source}`, d.body, d.headers)));
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === null)).toHaveLength(20);
    // Every copy of an event got the same Admit id.
    const byEvent = new Map<string, Set<string>>();
    for (const [k, { id }] of deliveries.entries()) byEvent.set(id, (byEvent.get(id) ?? new Set()).add(answers[k].json.id));
    expect([...byEvent.values()].map((s) => s.size)).toEqual(Array(20).fill(1));

    const rows = await sql<{ webhook_id: string }>(suite.db, "SELECT webhook_id FROM webhook_events WHERE source = $1", [source]);
    expect(rows.map((r) => r.webhook_id).sort()).toEqual([...ids].sort());

    const claims = await Promise.all(
      Array.from({ length: 4 }, () => suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 10, visibility_ms: 120_000 })),
    );
    const got = claims.flatMap((c) => c.json.events.map((e: { webhook_id: string }) => e.webhook_id));
    expect(got.sort()).toEqual([...ids].sort());
    for (const c of claims) {
      for (const e of c.json.events) expect((await suite.api("POST", `/v1/webhooks/${source}/events/${e.id}/ack`, { receipt: e.receipt })).status).toBe(200);
    }
    expect(
      await sql(suite.db, "SELECT count(*)::int AS c FROM webhook_events WHERE source = $1 AND claims = 1 AND processed_at IS NOT NULL", [source]),
    ).toEqual([{ c: 20 }]);
    expect((await suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 10 })).json.events).toEqual([]);
  });
});
