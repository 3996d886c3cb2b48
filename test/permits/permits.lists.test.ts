// The permit reads the dashboard needs (issue 22): held leases (optionally by prefix) and every
// semaphore with its use and first holders, each paged by name.
import { describe, expect, it } from "vitest";
import { servedApp } from "../support";

const suite = servedApp("permits_lists");

describe("GET /v1/locks", () => {
  it("lists the leases held now by key, with holder and fencing token, never the lease id; released ones drop out", async () => {
    expect((await suite.api("GET", "/v1/locks")).json).toEqual({ items: [], next_cursor: null });
    const a = await suite.api("POST", "/v1/locks/job-a/acquire", { holder: "w1", ttl_ms: 60_000 });
    const b = await suite.api("POST", "/v1/locks/job-b/acquire", { holder: "w2", ttl_ms: 60_000 });
    await suite.api("POST", "/v1/locks/other/acquire", { holder: "w3", ttl_ms: 60_000 });
    const all = await suite.api("GET", "/v1/locks");
    expect(all.status).toBe(200);
    expect(all.json.items.map((l: any) => l.key)).toEqual(["job-a", "job-b", "other"]);
    expect(all.json.items[0]).toEqual({
      key: "job-a",
      held: true,
      holder: "w1",
      fencing_token: a.json.fencing_token,
      claimed_at: a.json.claimed_at,
      expires_at: a.json.expires_at,
    });
    expect(JSON.stringify(all.json)).not.toContain(a.json.lease_id);
    const jobs = await suite.api("GET", "/v1/locks?prefix=job-&limit=1");
    expect(jobs.json).toMatchObject({ items: [{ key: "job-a" }], next_cursor: "job-a" });
    expect((await suite.api("GET", "/v1/locks?prefix=job-&limit=1&cursor=job-a")).json).toMatchObject({ items: [{ key: "job-b" }], next_cursor: null });
    await suite.api("POST", "/v1/locks/job-b/release", { lease_id: b.json.lease_id });
    expect((await suite.api("GET", "/v1/locks?prefix=job-")).json.items.map((l: any) => l.key)).toEqual(["job-a"]);
  });
});

describe("GET /v1/semaphores", () => {
  it("lists semaphores by name with permits, use and holders", async () => {
    expect((await suite.api("GET", "/v1/semaphores")).json).toEqual({ items: [], next_cursor: null });
    await suite.api("PUT", "/v1/semaphores/s2", { permits: 2, default_ttl_ms: 60_000 });
    await suite.api("PUT", "/v1/semaphores/s1", { permits: 3, default_ttl_ms: 60_000 });
    const p = await suite.api("POST", "/v1/semaphores/s1/acquire", { holder: "w9" });
    expect(p.status).toBe(201);
    const r = await suite.api("GET", "/v1/semaphores");
    expect(r.status).toBe(200);
    expect(r.json.items.map((s: any) => [s.name, s.permits, s.in_use, s.available])).toEqual([
      ["s1", 3, 1, 2],
      ["s2", 2, 0, 2],
    ]);
    expect(r.json.items[0].holders).toEqual([
      { slot: 0, holder: "w9", fencing_token: p.json.fencing_token, claimed_at: p.json.claimed_at, expires_at: p.json.expires_at },
    ]);
    expect((await suite.api("GET", "/v1/semaphores?limit=1")).json.next_cursor).toBe("s1");
  });

  it("carries each semaphore's first `holders` holders by slot and counts the rest; one semaphore's GET has them all", async () => {
    await suite.api("PUT", "/v1/semaphores/wide", { permits: 150, default_ttl_ms: 60_000 });
    const granted: any[] = [];
    for (let i = 0; i < 150; i += 25) {
      const got = await Promise.all(Array.from({ length: 25 }, (_, j) => suite.api("POST", "/v1/semaphores/wide/acquire", { holder: `h${i + j}` })));
      expect(got.map((g) => g.status)).toEqual(Array(25).fill(201));
      granted.push(...got.map((g) => g.json));
    }
    const wide = async (query: string) => {
      const r = await suite.api("GET", `/v1/semaphores?cursor=s2${query}`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.items.map((s: any) => s.name)).toEqual(["wide"]);
      return r.json.items[0];
    };
    const slots = (s: any) => s.holders.map((h: any) => h.slot);
    const byDefault = await wide("");
    expect([byDefault.in_use, byDefault.available, byDefault.more_holders]).toEqual([150, 0, 140]);
    expect(slots(byDefault)).toEqual([...Array(10).keys()]);
    const most = await wide("&holders=100");
    expect([slots(most), most.more_holders]).toEqual([[...Array(100).keys()], 50]);
    const none = await wide("&holders=0");
    expect([none.holders, none.more_holders]).toEqual([[], 150]);
    for (const bad of ["101", "-1", "1.5", "x"]) {
      const r = await suite.api("GET", `/v1/semaphores?holders=${bad}`);
      expect(r.status, bad).toBe(422);
      expect(r.json.errors, bad).toEqual([expect.objectContaining({ in: "query", path: "holders" })]);
    }
    const one = await suite.api("GET", "/v1/semaphores/wide");
    expect([slots(one.json), one.json.more_holders]).toEqual([[...Array(150).keys()], 0]);
    // Released claims leave both the holders and the count.
    expect((await suite.api("POST", "/v1/semaphores/wide/acquire", { holder: "late" })).status).toBe(429);
    for (const p of granted.filter((g) => g.slot < 3)) {
      expect((await suite.api("POST", "/v1/semaphores/wide/release", { permit_id: p.permit_id })).status).toBe(204);
    }
    const after = await wide("&holders=5");
    expect([after.in_use, slots(after), after.more_holders]).toEqual([147, [3, 4, 5, 6, 7], 142]);
  });
});
