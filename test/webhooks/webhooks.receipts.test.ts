// Acks carry their claim's receipt (issue 18, item 2): a consumer whose claim lapsed while it held the
// event cannot acknowledge it any more — not after another consumer re-claimed it, not at all.
import { describe, expect, it } from "vitest";
import { servedApp, sql, until } from "../support";
import { dbNowS, newSecret, signedHeaders } from "./webhooks.support";

const suite = servedApp("webhooks_receipts");

async function register(source: string, orderingKey: string | null) {
  const secret = newSecret();
  const res = await suite.api("PUT", `/v1/webhooks/sources/${source}`, { secret, ordering_key: orderingKey });
  expect(res.status).toBe(201);
  return secret;
}

async function deliver(source: string, secret: string, id: string, payload: unknown): Promise<string> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${suite.server.url}/v1/webhooks/${source}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...signedHeaders([secret], id, await dbNowS(suite.db), body) },
    body,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

const claim = async (source: string, visibility_ms: number) =>
  (await suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 10, visibility_ms })).json.events as Array<{ id: string; receipt: string }>;
const ack = (source: string, id: string, receipt: string) => suite.api("POST", `/v1/webhooks/${source}/events/${id}/ack`, { receipt });
/** Waits until the event's claim has lapsed on the database clock. */
const lapsed = (id: string) =>
  until(
    async () =>
      (await sql<{ gone: boolean }>(suite.db, "SELECT claim_expires_at <= clock_timestamp() AS gone FROM webhook_events WHERE id = $1", [id]))[0].gone,
    10_000,
    "the claim to lapse",
  );

describe("webhook acks with receipts, claims lapsing while held", () => {
  it("A's claim lapses, B re-claims, A acks late: 409 claim-not-current; B keeps the event, and the next of its ordering value waits for B's ack", async () => {
    const secret = await register("stale-ack", "/data/sub");
    const e1 = await deliver("stale-ack", secret, "m1", { data: { sub: "S-1", n: 1 } });
    const e2 = await deliver("stale-ack", secret, "m2", { data: { sub: "S-1", n: 2 } });

    const [a] = await claim("stale-ack", 100); // consumer A
    expect(a.id).toBe(e1);
    await lapsed(e1);
    const [b] = await claim("stale-ack", 600_000); // consumer B re-claims the same event
    expect(b.id).toBe(e1);

    const late = await ack("stale-ack", e1, a.receipt); // A, late
    expect(late.status).toBe(409);
    expect(b.receipt).not.toBe(a.receipt);
    expect(late.headers.get("content-type")).toContain("application/problem+json");
    expect(late.json).toMatchObject({ type: "/problems/claim-not-current", status: 409, state: "superseded" });
    const [row] = await sql<{ processed: boolean; live: boolean }>(
      suite.db,
      "SELECT processed_at IS NOT NULL AS processed, claim_expires_at > clock_timestamp() AS live FROM webhook_events WHERE id = $1",
      [e1],
    );
    expect(row).toEqual({ processed: false, live: true });
    expect(await claim("stale-ack", 600_000)).toEqual([]); // consumer C: e2 must wait while B holds e1

    const done = await ack("stale-ack", e1, b.receipt);
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ id: e1, status: "processed", claims: 2 });
    expect((await ack("stale-ack", e1, b.receipt)).json).toEqual(done.json); // again with its own receipt: the no-op 200
    expect((await ack("stale-ack", e1, a.receipt)).json).toMatchObject({ type: "/problems/claim-not-current", state: "processed" });
    expect((await claim("stale-ack", 600_000)).map((e) => e.id)).toEqual([e2]);
  });

  it("a claim that lapsed with nobody re-claiming: its ack is refused and the event is claimable again", async () => {
    const secret = await register("lapsed-ack", null);
    const e1 = await deliver("lapsed-ack", secret, "m1", { n: 1 });
    const [a] = await claim("lapsed-ack", 100);
    await lapsed(e1);
    const late = await ack("lapsed-ack", e1, a.receipt);
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ type: "/problems/claim-not-current", state: "expired" });
    const [again] = await claim("lapsed-ack", 600_000);
    expect(again.id).toBe(e1);
    expect((await ack("lapsed-ack", e1, again.receipt)).status).toBe(200);
  });

  it("an event never claimed cannot be acknowledged; a receipt is required", async () => {
    const secret = await register("unclaimed-ack", null);
    const e1 = await deliver("unclaimed-ack", secret, "m1", { n: 1 });
    expect((await ack("unclaimed-ack", e1, "00000000-0000-4000-8000-000000000000")).json).toMatchObject({ status: 409, state: "unclaimed" });
    const missing = await suite.api("POST", `/v1/webhooks/unclaimed-ack/events/${e1}/ack`);
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual(expect.any(Array));
    expect(await sql(suite.db, "SELECT processed_at FROM webhook_events WHERE id = $1", [e1])).toEqual([{ processed_at: null }]);
  });
});
