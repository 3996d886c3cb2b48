// Availability over a long, busy window (issue 28, item 5): 80 000 two-minute reservations on one
// resource made a six-month availability answer larger than the 10 MiB Neon's HTTP endpoint returns
// (the test bridge refuses it as Neon does), and it answered 503 "database unavailable, retry in 2 s"
// on every retry. An answer now covers at most `limit` reservations and says where to go on.
import { beforeAll, describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";

const suite = servedApp("reservations_large");

const R = "big/resource";
const FIRST = Date.parse("2032-01-01T00:00:00Z");
const N = 80_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

beforeAll(async () => {
  // One every 3 minutes for 2 minutes: 80 000 of them span ~167 days.
  await sql(
    suite.db,
    `INSERT INTO reservations (resource, holder, during)
     SELECT $1, 'h' || i, tstzrange($2::timestamptz + i * interval '3 min', $2::timestamptz + i * interval '3 min' + interval '2 min', '[)')
       FROM generate_series(0, $3 - 1) i`,
    [R, iso(FIRST), N],
  );
});

describe("availability of a resource with 80 000 reservations", () => {
  it("six months: 200 in parts of at most `limit` reservations, every busy interval once, free and busy tiling the window", async () => {
    const from = iso(FIRST - 86_400_000);
    const to = iso(FIRST + 183 * 86_400_000);
    const busy: { start: string; end: string }[] = [];
    const free: { start: string; end: string }[] = [];
    const sizes: number[] = [];
    let at = from;
    let parts = 0;
    for (;;) {
      const r = await suite.api("GET", `/v1/resources/${encodeURIComponent(R)}/availability?from=${at}&to=${to}`);
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      parts++;
      sizes.push(r.text.length);
      expect(r.json.from).toBe(at);
      expect(r.json.busy.length).toBeLessThanOrEqual(1000);
      busy.push(...r.json.busy);
      free.push(...r.json.free);
      if (r.json.next_from === undefined) {
        expect(r.json.to).toBe(to);
        break;
      }
      expect(r.json.to).toBe(r.json.next_from);
      at = r.json.next_from;
      expect(parts).toBeLessThan(200);
    }
    // The largest part: 10 000 reservations in one answer (~1.4 MB); more than that per answer is a 422.
    const one = await suite.api("GET", `/v1/resources/${encodeURIComponent(R)}/availability?from=${from}&to=${to}&limit=10000`);
    expect(one.status).toBe(200);
    expect(one.json.busy.length).toBe(10_000);
    expect(one.json.next_from).toBe(iso(FIRST + 10_000 * 180_000));
    expect((await suite.api("GET", `/v1/resources/${encodeURIComponent(R)}/availability?from=${from}&to=${to}&limit=10001`)).status).toBe(422);
    console.log(`6-month availability of ${N} reservations: ${parts} answers, largest ${Math.max(...sizes)} bytes`);
    expect(busy.length).toBe(N);
    expect(busy[0]).toEqual({ start: iso(FIRST), end: iso(FIRST + 120_000) });
    expect(busy[N - 1]).toEqual({ start: iso(FIRST + (N - 1) * 180_000), end: iso(FIRST + (N - 1) * 180_000 + 120_000) });
    // Free and busy together cover [from, to) without gap or overlap.
    const all = [...busy, ...free].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
    expect(all[0].start).toBe(from);
    expect(all[all.length - 1].end).toBe(to);
    const gaps = all.filter((x, i) => i > 0 && x.start !== all[i - 1].end);
    expect(gaps).toEqual([]);
  }, 300_000);

  it("a window that starts inside a reservation clips it, and a part cut between reservations loses nothing", async () => {
    const from = iso(FIRST + 60_000); // inside the first reservation
    const r = await suite.api("GET", `/v1/resources/${encodeURIComponent(R)}/availability?from=${from}&to=${iso(FIRST + 3_600_000)}&limit=3`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      resource: R,
      from,
      to: iso(FIRST + 3 * 180_000),
      busy: [
        { start: from, end: iso(FIRST + 120_000) },
        { start: iso(FIRST + 180_000), end: iso(FIRST + 300_000) },
        { start: iso(FIRST + 360_000), end: iso(FIRST + 480_000) },
      ],
      free: [
        { start: iso(FIRST + 120_000), end: iso(FIRST + 180_000) },
        { start: iso(FIRST + 300_000), end: iso(FIRST + 360_000) },
        { start: iso(FIRST + 480_000), end: iso(FIRST + 540_000) },
      ],
      next_from: iso(FIRST + 3 * 180_000),
    });
  });
});
