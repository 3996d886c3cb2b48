// Each scenario's violations are counted from the database afterwards: these plant violations the
// schema would forbid (in a throwaway database) and check that each count finds exactly them.
import { describe, expect, it } from "vitest";
import { peerSql } from "../../bench/peers";
import { DUPLICATE_PERMITS } from "../../bench/scenarios/permits";
import { EXCESS_ADMISSIONS } from "../../bench/scenarios/ratelimit";
import { ADMIT_OVERLAPS, PEER_OVERLAPS } from "../../bench/scenarios/reservation-burst";
import { DUPLICATE_INBOX_ROWS } from "../../bench/scenarios/webhooks";
import { freshDatabase, sql } from "../support";

describe("violations are counted from the database", () => {
  it("overlapping pairs among a resource's active reservations, and in the peers' table", async () => {
    const db = await freshDatabase("bench_violations");
    // The EXCLUDE constraint forbids what this counts: drop it in this throwaway database to plant overlaps.
    await sql(db, "ALTER TABLE reservations DROP CONSTRAINT reservations_no_overlap");
    const put = (resource: string, from: string, to: string, cancelled = false) =>
      sql(
        db,
        `INSERT INTO reservations (resource, holder, during, cancelled_at) VALUES ($1, 'h', tstzrange($2::timestamptz, $3::timestamptz, '[)'), ${cancelled ? "now()" : "NULL"})`,
        [resource, from, to],
      );
    await put("rb/a", "2030-01-01T00:00:00Z", "2030-01-01T03:00:00Z");
    await put("rb/a", "2030-01-01T02:00:00Z", "2030-01-01T04:00:00Z"); // overlaps the first
    await put("rb/a", "2030-01-01T01:00:00Z", "2030-01-01T02:00:00Z"); // overlaps the first only
    await put("rb/a", "2030-01-01T04:00:00Z", "2030-01-01T05:00:00Z"); // back to back: no overlap
    await put("rb/a", "2030-01-01T00:00:00Z", "2030-01-01T09:00:00Z", true); // cancelled: ignored
    await put("rb/b", "2030-01-01T00:00:00Z", "2030-01-01T03:00:00Z"); // another resource
    expect(await sql(db, ADMIT_OVERLAPS, ["rb/a"])).toEqual([{ n: 2 }]);
    expect(await sql(db, ADMIT_OVERLAPS, ["rb/b"])).toEqual([{ n: 0 }]);

    const naive = await peerSql("seed000-naive.sql");
    await sql(db, naive.setup);
    // [0,2) then [1,3) (overlaps it; the check says so, but nothing stops an insert) then [3,4) (back to back).
    const plan: [string, string, number][] = [
      ["2030-01-01T00:00:00Z", "2030-01-01T02:00:00Z", 0],
      ["2030-01-01T01:00:00Z", "2030-01-01T03:00:00Z", 1],
      ["2030-01-01T03:00:00Z", "2030-01-01T04:00:00Z", 0],
    ];
    for (const [from, to, taken] of plan) {
      expect(await sql(db, naive.check, ["p", from, to])).toHaveLength(taken);
      await sql(db, naive.insert, ["p", from, to, "u"]);
    }
    expect(await sql(db, PEER_OVERLAPS, ["p"])).toEqual([{ n: 1 }]);
  });
});

describe("duplicate permits are counted from the history", () => {
  it("a claim overlapping an earlier one on its slot, a slot beyond the size, a token out of order", async () => {
    const db = await freshDatabase("bench_permits");
    const put = (slot: number, from: string, to: string, token: number) =>
      sql(
        db,
        "INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at, released_at) VALUES ('semaphore', 's', $1, 'h', $2, 60000, $3::timestamptz, $3::timestamptz + interval '1 min', $4::timestamptz)",
        [slot, token, from, to],
      );
    await put(0, "2030-01-01T10:00:00Z", "2030-01-01T10:05:00Z", 1);
    await put(0, "2030-01-01T10:03:00Z", "2030-01-01T10:06:00Z", 2); // slot 0 still held by the first: 1
    await put(1, "2030-01-01T10:04:00Z", "2030-01-01T10:10:00Z", 3);
    await put(0, "2030-01-01T10:06:00Z", "2030-01-01T10:07:00Z", 4); // starts as the second ends: fine
    await put(4, "2030-01-01T10:20:00Z", "2030-01-01T10:21:00Z", 5); // slot 4 of a 4-permit semaphore: 1
    await put(2, "2030-01-01T10:30:00Z", "2030-01-01T10:31:00Z", 0); // granted last, smaller token: 1
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "s", 4])).toEqual([{ n: 3 }]);
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "other", 4])).toEqual([{ n: 0 }]);
  });
});

describe("rate-limit and webhook violations are counted from the database", () => {
  it("admissions beyond the limit in a window, per counter row", async () => {
    const db = await freshDatabase("bench_ratelimit");
    await sql(db, "SELECT admit_ratelimit_put_policy('p', 'fixed_window', 5, 60000, false, 604800000)");
    const put = (key: string, slot: number, admitted: number) =>
      sql(
        db,
        "INSERT INTO ratelimit_counters (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at) VALUES ('p', $1, $2, now(), $3::int, $3::int, $3::int, 0, true, now() + interval '1 h')",
        [key, slot, admitted],
      );
    await put("a", 1, 7); // 2 beyond
    await put("a", 2, 5); // at the limit
    await put("b", 1, 6); // 1 beyond
    expect(await sql(db, EXCESS_ADMISSIONS, ["p"])).toEqual([{ n: 3 }]);
  });

  it("more than one inbox row per webhook-id", async () => {
    const db = await freshDatabase("bench_webhooks");
    await sql(db, "SELECT admit_webhook_put_source('s', 'standard-webhooks', $1, NULL, 300, NULL, NULL, NULL, NULL, NULL, NULL)", [
      "whsec_" + Buffer.alloc(32, 7).toString("base64"),
    ]);
    // The unique constraint forbids what this counts: drop it in this throwaway database to plant duplicates.
    await sql(db, "ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_once");
    for (const id of ["e1", "e1", "e1", "e2"]) {
      await sql(db, "INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, payload) VALUES ('s', $1, now(), '{}')", [id]);
    }
    expect(await sql(db, DUPLICATE_INBOX_ROWS, ["s"])).toEqual([{ n: 2 }]);
  });
});
