// The permit reads the dashboard needs (issue 22): held leases (optionally by prefix) and every
// semaphore with its holders, each paged by name.
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
});
