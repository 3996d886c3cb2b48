// /v1/authz decisions are counted exactly as POST /v1/ratelimits/check's: attempted/rejected in the
// counters (the deny cache's answers too, through the isolate's tally) and the
// admit_ratelimit_decisions_total series of /metrics, for one policy and for several.
import { describe, expect, it } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { bindings, servedApp, until } from "../support";

const suite = servedApp("ratelimits_authz_counted", { METRICS_FLUSH_MS: "300" }); // deny cache on (the default)
const YEAR = 366 * 86_400_000;

async function putPolicy(name: string, limit: number) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit, window_ms: YEAR, timeout_ms: 30_000 });
  expect([200, 201], res.text).toContain(res.status);
}

const usage = async (policy: string, key: string) => (await suite.api("GET", `/v1/ratelimits/usage?policy=${policy}&key=${encodeURIComponent(key)}`)).json;
/** Every count of this process has landed: the tally holds nothing and has no flush under way. */
const flushed = () => until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");

/** The admit_ratelimit_decisions_total samples of `policy` on /metrics, by outcome. */
async function decisions(policy: string): Promise<Record<string, number>> {
  const text = (await suite.api("GET", "/metrics")).text;
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^admit_ratelimit_decisions_total\{outcome="(\w+)",policy="([^"]+)"\} (\d+)$/gm)) if (m[2] === policy) out[m[1]] = Number(m[3]);
  return out;
}

describe("/v1/authz decisions are counted as the check route's", () => {
  it("20 calls on a limit of 2: usage says attempted 20, admitted 2, rejected 18 and /metrics 2 allowed, 18 denied — as 20 on POST /v1/ratelimits/check", async () => {
    await putPolicy("cnt-authz", 2);
    await putPolicy("cnt-check", 2);
    const viaAuthz: number[] = [];
    const viaCheck: number[] = [];
    let hits = 0;
    for (let i = 0; i < 20; i++) {
      const r = await suite.api("GET", "/v1/authz?policy=cnt-authz&key=header:X-Api-Key", undefined, { "X-Api-Key": "tenant-1" });
      viaAuthz.push(r.status);
      if (r.headers.get("admit-cache") === "hit") hits++;
      viaCheck.push((await suite.api("POST", "/v1/ratelimits/check", { policy: "cnt-check", key: "tenant-1" })).status);
    }
    expect(viaAuthz).toEqual([200, 200, ...Array(18).fill(429)]);
    expect(viaCheck).toEqual(viaAuthz);
    expect(hits).toBeGreaterThan(0); // the deny cache answered some: their counts travel through the tally
    await flushed();
    const counts = { admitted: 2, attempted: 20, rejected: 18, consumed: 2 };
    expect(await usage("cnt-check", "tenant-1")).toMatchObject(counts);
    expect(await usage("cnt-authz", "tenant-1")).toMatchObject(counts);
    expect(await decisions("cnt-check")).toEqual({ allowed: 2, denied: 18 });
    expect(await decisions("cnt-authz")).toEqual({ allowed: 2, denied: 18 });
  });

  it("several policies in one forward-auth check count on every policy, the deny cache's answers too", async () => {
    await putPolicy("cnt-small", 1);
    await putPolicy("cnt-big", 100);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await suite.api("POST", "/v1/authz?policy=cnt-small&policy=cnt-big&key=ip", undefined, { "X-Forwarded-For": "192.0.2.44" })).status);
    }
    expect(statuses).toEqual([200, ...Array(5).fill(429)]);
    await flushed();
    for (const p of ["cnt-small", "cnt-big"]) {
      expect(await usage(p, "192.0.2.44")).toMatchObject({ admitted: 1, attempted: 6, rejected: 5 });
      expect(await decisions(p)).toEqual({ allowed: 1, denied: 5 });
    }
  });
});
