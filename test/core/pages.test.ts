// Lists whose items can be large are paged by bytes as well as by count (admit_page, cutPage): a
// page of 1 000 webhook events of 60 KB payloads, reservations with 60 KB metadata, or semaphores
// with 100 holders each is far over the 10 MiB that Neon's HTTP endpoint answers (the test bridge
// refuses such an answer as Neon does, dev/bridge/sql-wire.ts). Each list must answer every time, and
// following next_cursor must give every item exactly once, in order.
import { describe, expect, it } from "vitest";
import { MAX_PAGE_BYTES } from "../../functions/core/validation";
import { servedApp, sql } from "../support";
import { newSecret } from "../webhooks/webhooks.support";

const suite = servedApp("pages_bytes");

/** Every page of `path` (limit 1000) in order: each one's status, item count and size. */
async function allPages(path: string) {
  const items: any[] = [];
  const pages: { status: number; n: number; bytes: number }[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const r = await suite.api("GET", `${path}${sep}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    pages.push({ status: r.status, n: r.json?.items?.length ?? 0, bytes: r.text.length });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 300)}`);
    items.push(...r.json.items);
    cursor = r.json.next_cursor;
  } while (cursor !== null && pages.length < 100);
  return { items, pages };
}

/**
 * No page is over the bound by more than an item, and every page but the last was cut by bytes, not
 * by count: near the bound (the database counts its own JSON text, with spaces that the HTTP answer
 * drops, so a page answered is somewhat under it).
 */
function checkPages(pages: { n: number; bytes: number }[], itemBytes: number) {
  expect(pages.length).toBeGreaterThan(2);
  for (const p of pages) expect(p.bytes).toBeLessThan(MAX_PAGE_BYTES + 2 * itemBytes);
  for (const p of pages.slice(0, -1)) {
    expect(p.n).toBeLessThan(1000);
    expect(p.bytes).toBeGreaterThan(0.75 * MAX_PAGE_BYTES);
  }
}

describe("pages bounded by bytes", () => {
  it("webhook events: 200 payloads of 60 KB (12 MB) page by ~2 MiB, and claims likewise; every event once, in received order", async () => {
    expect((await suite.api("PUT", "/v1/webhooks/sources/big", { secret: newSecret() })).status).toBe(201);
    await sql(
      suite.db,
      `INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, payload)
       SELECT 'big', 'msg_' || i, now(), json_build_object('i', i, 'blob', repeat(md5(i::text), 1900))
         FROM generate_series(1, 200) i ORDER BY i`,
    );
    const { items, pages } = await allPages("/v1/webhooks/big/events");
    expect(items.map((e) => e.webhook_id)).toEqual(Array.from({ length: 200 }, (_, i) => `msg_${i + 1}`));
    checkPages(pages, 61_000);
    console.log("webhook events pages:", pages.map((p) => `${p.n} (${(p.bytes / 1048576).toFixed(2)} MiB)`).join(", "));
    // A claim of 100 of them hands out ~2 MiB worth (34), and the next claim the following ones:
    // no event is claimed without being answered, none twice.
    const claimed: string[] = [];
    for (let i = 0; i < 10 && claimed.length < 200; i++) {
      const r = await suite.api("POST", "/v1/webhooks/big/events/claim", { limit: 100, visibility_ms: 600_000 });
      expect(r.status, r.text.slice(0, 200)).toBe(200);
      expect(r.text.length).toBeLessThan(MAX_PAGE_BYTES + 2 * 61_000);
      claimed.push(...r.json.events.map((e: any) => e.webhook_id));
      if (i === 0) expect(r.json.events.length).toBeLessThan(100);
    }
    expect(claimed).toEqual(Array.from({ length: 200 }, (_, i) => `msg_${i + 1}`));
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM webhook_events WHERE source = 'big' AND claims = 1");
    expect(n).toBe(200);
    // A small page is still cut by count.
    const two = await suite.api("GET", "/v1/webhooks/big/events?limit=2");
    expect([two.json.items.length, two.json.next_cursor]).toEqual([2, expect.any(String)]);
  });

  it("reservations, active and with history: 200 with 60 KB metadata each page by ~2 MiB; every one once, in start order", async () => {
    await sql(
      suite.db,
      `INSERT INTO reservations (resource, holder, during, metadata, cancelled_at)
       SELECT 'hall', 'h' || i, tstzrange('2031-01-01'::timestamptz + i * interval '1 hour', '2031-01-01'::timestamptz + (i + 1) * interval '1 hour'),
              jsonb_build_object('blob', repeat(md5(i::text), 1900)), CASE WHEN i % 4 = 0 THEN now() END
         FROM generate_series(1, 200) i`,
    );
    const active = await allPages("/v1/reservations?resource=hall");
    expect(active.items.map((r) => r.holder)).toEqual(Array.from({ length: 200 }, (_, i) => `h${i + 1}`).filter((_, i) => (i + 1) % 4 !== 0));
    checkPages(active.pages, 61_000);
    const history = await allPages("/v1/reservations?resource=hall&include_cancelled=true");
    expect(history.items.map((r) => r.holder)).toEqual(Array.from({ length: 200 }, (_, i) => `h${i + 1}`));
    checkPages(history.pages, 61_000);
  });

  it("semaphores with 100 holders listed each: 300 of them (about 17 MB) page by ~2 MiB", async () => {
    await sql(
      suite.db,
      "INSERT INTO semaphores (name, permits, default_ttl_ms) SELECT 'sem-' || lpad(i::text, 3, '0'), 100, 600000 FROM generate_series(1, 300) i",
    );
    await sql(
      suite.db,
      `INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
       SELECT 'semaphore', 'sem-' || lpad(i::text, 3, '0'), j, 'worker-with-a-longish-name-' || j, i * 1000 + j, 600000, now(), now() + interval '1 hour'
         FROM generate_series(1, 300) i, generate_series(0, 99) j`,
    );
    const { items, pages } = await allPages("/v1/semaphores?holders=100");
    expect(items.map((s) => s.name)).toEqual(Array.from({ length: 300 }, (_, i) => `sem-${String(i + 1).padStart(3, "0")}`));
    expect(items.every((s) => s.holders.length === 100 && s.more_holders === 0)).toBe(true);
    checkPages(pages, 20_000);
  });
});
