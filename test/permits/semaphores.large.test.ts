// One semaphore's answer with 10 000 valid 200-character holders (issue 28, item 5): GET listed every
// holder, over the 10 MiB Neon's HTTP endpoint returns (the test bridge refuses it as Neon does; a
// control character is 6 bytes in Postgres' JSON and 7 in the endpoint's answer), and
// answered 503 "database unavailable, retry in 2 s" on every retry; a PUT answered the same list.
// Now at most `holders` (1 000 by default) by slot, paged with `after_slot`.
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";

const suite = servedApp("semaphores_large");

/** Slot `i`'s holder: its number, then 190 control characters (valid, and large once escaped). */
const holderOf = (slot: number) => String(slot).padStart(10, "0") + "\u0001".repeat(190);

describe("a semaphore with 10 000 holders of 200 characters", () => {
  it("GET answers 200 with the first 1 000 by slot and more_holders; after_slot pages through all of them once; PUT answers too", async () => {
    const name = "wide";
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 10_000, default_ttl_ms: 3_600_000 })).status).toBe(201);
    await sql(
      suite.db,
      `INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
       SELECT 'semaphore', $1, i, lpad(i::text, 10, '0') || repeat(chr(1), 190), nextval('admit_fencing_token'), 3600000, now(), now() + interval '1 hour'
         FROM generate_series(0, 9999) i`,
      [name],
    );

    const first = await suite.api("GET", `/v1/semaphores/${name}`);
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    expect(first.json).toMatchObject({ name, permits: 10_000, in_use: 10_000, available: 0, more_holders: 9_000 });
    expect(first.json.holders.map((h: { slot: number }) => h.slot)).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    const slots: number[] = [];
    let after: number | null = null;
    for (let page = 0; page < 30; page++) {
      const r = await suite.api("GET", `/v1/semaphores/${name}?holders=700${after === null ? "" : `&after_slot=${after}`}`);
      expect(r.status).toBe(200);
      expect(r.json.in_use).toBe(10_000);
      slots.push(...r.json.holders.map((h: { slot: number; holder: string }) => h.slot));
      for (const h of r.json.holders) expect(h.holder).toBe(holderOf(h.slot));
      expect(r.json.more_holders).toBe(10_000 - slots.length);
      if (r.json.more_holders === 0) break;
      after = slots[slots.length - 1];
    }
    expect(slots).toEqual(Array.from({ length: 10_000 }, (_, i) => i));

    const resized = await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 10_000 });
    expect(resized.status).toBe(200);
    expect(resized.json.holders).toHaveLength(1000);
    expect(resized.json.more_holders).toBe(9_000);

    expect((await suite.api("GET", `/v1/semaphores/${name}?holders=1001`)).status).toBe(422);
    expect((await suite.api("GET", `/v1/semaphores/${name}?after_slot=-1`)).status).toBe(422);
  }, 120_000);
});
