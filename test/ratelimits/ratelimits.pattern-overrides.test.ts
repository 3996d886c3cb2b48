// Pattern overrides: an override whose key contains `*` gives its limit to every key it matches.
// The key's exact override beats any pattern; between matching patterns the longest literal prefix
// (the text before the first `*`) wins; a pattern that could tie with another (same prefix, a key
// both match, overlapping periods) is refused at write time with a 409 naming the other. Time bounds
// as exact overrides: a wait stops at the next boundary of any override matching the key. Shown at
// the SQL functions (clock input p_now, exact to the millisecond) for every check path, over HTTP,
// and under a 1 000-request burst with 1 000 other pattern overrides present (real Postgres).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nameMatches } from "../../functions/core/scopes";
import { connect, servedApp, sql } from "../support";
import { checkAt, DAY, ratelimitApi } from "./helpers";

const suite = servedApp("ratelimits_pattern_overrides"); // deny cache on (the default)
const { putPolicy, check } = ratelimitApi(suite);
const YEAR = 366 * DAY;
// 01:00 UTC on a day: the day's window ends 23 h later, far from every boundary below.
const T0 = Date.parse("2031-03-04T01:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();

type Pg = Awaited<ReturnType<typeof connect>>;
let c: Pg;
beforeAll(async () => {
  c = await connect(suite.db);
});
afterAll(async () => {
  await c?.end();
});

async function policy(name: string, algorithm: string, limit: number, log = false) {
  await c.query("SELECT admit_ratelimit_put_policy($1, $2, $3::integer, $4::bigint, $5::boolean, 604800000)", [name, algorithm, limit, DAY, log]);
}

async function override(name: string, key: string, limit: number, fromMs = -DAY, toMs: number | null = null) {
  const { rows } = await c.query("SELECT admit_ratelimit_put_override($1, $2, $3::integer, $4::timestamptz, $5::timestamptz) AS r", [
    name,
    key,
    limit,
    at(fromMs),
    toMs === null ? null : at(toMs),
  ]);
  return rows[0].r as { status: string; conflicts?: { key: string }[] };
}

async function multiAt(policies: string[], key: string, ms: number) {
  const { rows } = await c.query("SELECT admit_ratelimit_check_multi($1::text[], $2, 1, NULL, 1000, $3::timestamptz) AS r", [policies, key, at(ms)]);
  return rows[0].r as { allowed: boolean; results: { limit: number; allowed: boolean; retry_after_ms: number | null }[] };
}

async function runAt(name: string, key: string, n: number, ms: number) {
  const { rows } = await c.query("SELECT admit_ratelimit_check_run($1, $2, $3::integer[], $4::jsonb[], 1000, $5::timestamptz) AS r", [
    name,
    key,
    Array(n).fill(1),
    Array(n).fill(null),
    at(ms),
  ]);
  return rows[0].r as { allowed: boolean; limit: number }[];
}

/** The indexes the checks' override look-up reads for (policy, key), from admit_ratelimit_override_bounds's own text, planned generically as that function plans it. */
async function lookupIndexes(policy: string, key: string, lengths: number[]): Promise<string[]> {
  const [{ def }] = await sql<{ def: string }>(suite.db, "SELECT prosrc AS def FROM pg_proc WHERE proname = 'admit_ratelimit_override_bounds'");
  const branch = lengths.length === 0 ? def.indexOf("SELECT max(o.quota)") : def.indexOf("SELECT (array_agg(o.quota");
  const text = def
    .slice(branch, def.indexOf(";", branch))
    .replace("INTO o_quota, o_next", "")
    .replace(/p_pol\.pattern_prefix_lengths/g, "$4::integer[]")
    .replace(/p_pol\.name/g, "$1")
    .replace(/p_key/g, "$2")
    .replace(/p_now/g, "$3::timestamptz");
  await c.query("SET plan_cache_mode = force_generic_plan");
  try {
    await c.query(`PREPARE lookup(text, text, timestamptz, integer[]) AS ${text}`);
    const { rows } = await c.query(`EXPLAIN (FORMAT JSON) EXECUTE lookup('${policy}', '${key}', now(), '{${lengths.join(",")}}')`); // test constants, no quotes
    const found: string[] = [];
    const walk = (n: Record<string, unknown>) => {
      if (n["Index Name"]) found.push(String(n["Index Name"]));
      if (n["Relation Name"] === "ratelimit_overrides" && !String(n["Node Type"]).includes("Index") && n["Node Type"] !== "Bitmap Heap Scan")
        found.push("seq scan");
      for (const child of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(rows[0]["QUERY PLAN"][0].Plan);
    console.log(`look-up plan (${policy}):`, JSON.stringify(rows[0]["QUERY PLAN"][0].Plan).slice(0, 400));
    return found;
  } finally {
    await c.query("DEALLOCATE ALL; RESET plan_cache_mode");
  }
}

const kinds = [
  ["fixed window (fast path)", "fixed_window", false],
  ["fixed window, logged (general check)", "fixed_window", true],
  ["sliding window", "sliding_window", false],
  ["token bucket", "token_bucket", false],
] as const;

describe("which override is in force (SQL, every check path)", () => {
  for (const [label, algorithm, log] of kinds) {
    it(`${label}: exact beats every pattern; the longest literal prefix beats a shorter one`, async () => {
      const name = `prec-${algorithm}-${log}`;
      await policy(name, algorithm, 5, log);
      expect((await override(name, "tenant-*", 10)).status).toBe("created");
      expect((await override(name, "tenant-42:*", 20)).status).toBe("created");
      expect((await override(name, "tenant-42:vip", 30)).status).toBe("created");
      expect((await override(name, "*:admin", 40)).status).toBe("created");
      const limitOf = async (key: string) => (await checkAt(c, name, key, 1, at(0))).limit;
      expect(await limitOf("tenant-42:x")).toBe(20);
      expect(await limitOf("tenant-42:")).toBe(20); // `*` matches the empty run
      expect(await limitOf("tenant-42:vip")).toBe(30);
      expect(await limitOf("tenant-7:x")).toBe(10);
      expect(await limitOf("tenant-42:admin")).toBe(20); // prefix "tenant-42:" beats ""
      expect(await limitOf("ops:admin")).toBe(40);
      expect(await limitOf("tenant")).toBe(5);
      expect(await limitOf("other")).toBe(5);
    });
  }

  it("`%`, `_` and `\\` in a pattern are literal; `*` in the middle and several `*`", async () => {
    await policy("lit", "fixed_window", 5);
    expect((await override("lit", "a_b%c*", 10)).status).toBe("created");
    expect((await override("lit", "x*-y*-z", 11)).status).toBe("created");
    expect((await override("lit", "p\\*", 12)).status).toBe("created");
    const limitOf = async (key: string) => (await checkAt(c, "lit", key, 1, at(0))).limit;
    expect(await limitOf("a_b%c")).toBe(10);
    expect(await limitOf("axb%c1")).toBe(5);
    expect(await limitOf("a_bxc1")).toBe(5);
    expect(await limitOf("x1-y2-z")).toBe(11);
    expect(await limitOf("x-y-z")).toBe(11);
    expect(await limitOf("x1-y2-z3")).toBe(5);
    expect(await limitOf("p\\q")).toBe(12);
    expect(await limitOf("pq")).toBe(5);
  });

  it("the multi-policy check, the run of one key, usage and shadow use the same winner", async () => {
    await policy("m-a", "fixed_window", 5);
    await policy("m-b", "sliding_window", 5);
    await override("m-a", "t-*", 7);
    await override("m-b", "t-1*", 9);
    await override("m-b", "t-*", 8);
    const m = await multiAt(["m-a", "m-b"], "t-12", 0);
    expect(m.results.map((r) => r.limit)).toEqual([7, 9]);
    expect((await runAt("m-a", "t-12", 3, 0)).map((r) => r.limit)).toEqual([7, 7, 7]);
    const { rows } = await c.query(
      "SELECT (admit_ratelimit_frame(p, 't-2', $1::timestamptz)).o_limit AS l, admit_ratelimit_in_shadow(p, 't-2', $1::timestamptz) AS s FROM ratelimit_policies p WHERE name = 'm-b'",
      [at(0)],
    );
    expect(rows[0]).toEqual({ l: 8, s: false });
    await c.query("SELECT admit_ratelimit_put_override('m-b', 't-*', 8, $1::timestamptz, NULL, 2000, true)", [at(-DAY)]);
    const shadow = await c.query(
      "SELECT admit_ratelimit_in_shadow(p, 't-2', $1::timestamptz) AS s2, admit_ratelimit_in_shadow(p, 't-12', $1::timestamptz) AS s12 FROM ratelimit_policies p WHERE name = 'm-b'",
      [at(0)],
    );
    // t-12's override in force is the unshadowed "t-1*": only t-2 is in shadow.
    expect(shadow.rows[0]).toEqual({ s2: true, s12: false });
  });
});

describe("time bounds (SQL, clock input)", () => {
  for (const [label, algorithm, log] of kinds) {
    it(`${label}: a pattern starting later ends the wait at its start; a penalty pattern's end ends it too`, async () => {
      const name = `tb-${algorithm}-${log}`;
      await policy(name, algorithm, 1, log);
      await override(name, "k-*", 100, 6_000, null);
      expect((await checkAt(c, name, "k-1", 1, at(0))).allowed).toBe(true);
      expect(await checkAt(c, name, "k-1", 1, at(400))).toMatchObject({ allowed: false, limit: 1, retry_after_ms: 5_600 });
      expect(await checkAt(c, name, "k-1", 1, at(6_000))).toMatchObject({ allowed: algorithm !== "token_bucket", limit: 100 });
      // A key the pattern does not match is not stopped by its boundary.
      await checkAt(c, name, "j-1", 1, at(0));
      expect((await checkAt(c, name, "j-1", 1, at(400))).retry_after_ms).toBeGreaterThan(6_000);

      const pen = `pen-${algorithm}-${log}`;
      await policy(pen, algorithm, 100, log);
      await override(pen, "k-*", 1, -1_000, 5_000);
      expect((await checkAt(c, pen, "k-1", 1, at(0))).allowed).toBe(true);
      expect(await checkAt(c, pen, "k-1", 1, at(1_000))).toMatchObject({ allowed: false, limit: 1, retry_after_ms: 4_000 });
      expect(await checkAt(c, pen, "k-1", 1, at(5_000))).toMatchObject({ allowed: algorithm !== "token_bucket", limit: 100 });
    });
  }

  it("a more specific pattern starting later stops the wait under the less specific one in force", async () => {
    await policy("nest", "fixed_window", 100);
    await override("nest", "t-*", 1, -1_000, null);
    await override("nest", "t-9*", 50, 3_000, null);
    expect((await checkAt(c, "nest", "t-91", 1, at(0))).limit).toBe(1);
    expect(await checkAt(c, "nest", "t-91", 1, at(10))).toMatchObject({ allowed: false, retry_after_ms: 2_990 });
    expect(await checkAt(c, "nest", "t-91", 1, at(3_000))).toMatchObject({ allowed: true, limit: 50 });
    const m = await multiAt(["nest"], "t-92", 0);
    expect(m.results[0].limit).toBe(1);
  });
});

describe("ties are refused at write time", () => {
  it("same literal prefix and a key both match: 409 naming the other; disjoint, other prefix or other period: written", async () => {
    await putPolicy("ties", { algorithm: "fixed_window", limit: 5, window_ms: YEAR });
    const put = (key: string, body: Record<string, unknown> = {}) =>
      suite.api("PUT", `/v1/ratelimits/policies/ties/overrides/${encodeURIComponent(key)}`, {
        limit: 10,
        valid_from: "2030-01-01T00:00:00Z",
        ...body,
      });
    expect((await put("tenant-*:read")).status).toBe(201);
    const tie = await put("tenant-*");
    expect(tie.status).toBe(409);
    expect(tie.json.type).toBe("/problems/override-conflict");
    expect(tie.json.detail).toContain('"tenant-*:read"');
    expect(tie.json.conflicts.map((o: { key: string }) => o.key)).toEqual(["tenant-*:read"]);
    expect((await put("tenant-*:write")).status).toBe(201); // never matches a key "tenant-*:read" matches
    expect((await put("tenant-4*")).status).toBe(201); // a longer prefix: always more specific
    expect((await put("tenant-*", { valid_from: "2029-01-01T00:00:00Z", valid_to: "2030-01-01T00:00:00Z" })).status).toBe(201);
    expect((await put("tenant-*:re*")).status).toBe(409);
    // The same pattern again over an overlapping period: the ordinary conflict; its exact period: an update.
    expect((await put("tenant-*:read", { valid_from: "2031-01-01T00:00:00Z" })).status).toBe(409);
    expect((await put("tenant-*:read", { limit: 11 })).status).toBe(200);
    const rows = await sql<{ key: string }>(suite.db, "SELECT key FROM ratelimit_overrides WHERE policy = 'ties' ORDER BY key COLLATE \"C\", lower(valid)");
    expect(rows.map((r) => r.key)).toEqual(["tenant-*", "tenant-*:read", "tenant-*:write", "tenant-4*"]);
    const [{ l }] = await sql<{ l: number[] }>(suite.db, "SELECT pattern_prefix_lengths AS l FROM ratelimit_policies WHERE name = 'ties'");
    expect(l).toEqual([7, 8]);
  });

  it("admit_ratelimit_glob_overlap agrees with a brute force over every pair of small patterns", async () => {
    const alphabet = ["a", "b", "*"];
    const pats: string[] = [""];
    for (let len = 1; len <= 3; len++) for (const p of pats.filter((x) => x.length === len - 1)) for (const ch of alphabet) pats.push(p + ch);
    const words: string[] = [""];
    for (let len = 1; len <= 6; len++) for (const w of words.filter((x) => x.length === len - 1)) for (const ch of ["a", "b"]) words.push(w + ch);
    const as: string[] = [];
    const bs: string[] = [];
    const want: boolean[] = [];
    for (const a of pats.filter(Boolean)) {
      for (const b of pats.filter(Boolean)) {
        as.push(a);
        bs.push(b);
        want.push(words.some((w) => nameMatches(a, w) && nameMatches(b, w)));
      }
    }
    const { rows } = await c.query(
      "SELECT array_agg(admit_ratelimit_glob_overlap(a, b) ORDER BY i) AS got FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(a, b, i)",
      [as, bs],
    );
    expect(as.length).toBe(39 * 39);
    expect(rows[0].got).toEqual(want);
    expect(want.filter(Boolean).length).toBeGreaterThan(100);
    expect(want.filter((x) => !x).length).toBeGreaterThan(100);
  });
});

describe("over HTTP", () => {
  it("a pattern penalty of 1 for 1.5 s on 100 a year: 429 ≤ 1.5 s (cache too), then admitted by the database; DELETE takes it away", async () => {
    await putPolicy("http-pen", { algorithm: "fixed_window", limit: 100, window_ms: YEAR });
    const end = Date.now() + 1_500;
    const o = await suite.api("PUT", "/v1/ratelimits/policies/http-pen/overrides/k-*", {
      limit: 1,
      valid_from: new Date(Date.now() - 1_000).toISOString(),
      valid_to: new Date(end).toISOString(),
    });
    expect([o.status, o.json.key]).toEqual([201, "k-*"]);
    expect((await check("http-pen", "k-1")).status).toBe(200);
    const denied = await check("http-pen", "k-1");
    expect([denied.status, denied.json.limit]).toEqual([429, 1]);
    expect(denied.json.retry_after_ms).toBeLessThanOrEqual(1_500);
    expect(Number(denied.headers.get("retry-after"))).toBeLessThanOrEqual(2);
    expect((await check("http-pen", "k-1")).json.reason).toBe("cache");
    expect((await check("http-pen", "other")).json.limit).toBe(100);
    await new Promise((r) => setTimeout(r, Math.max(0, end + 100 - Date.now())));
    expect((await check("http-pen", "k-1")).json).toMatchObject({ allowed: true, reason: "limit", limit: 100 });

    // A pattern written through this isolate clears the policy's cached denials at once.
    const next = new Date(end).toISOString();
    expect((await suite.api("PUT", "/v1/ratelimits/policies/http-pen/overrides/k-*", { limit: 2, valid_from: next })).status).toBe(201);
    expect((await check("http-pen", "k-1")).status).toBe(429);
    expect((await check("http-pen", "k-1")).json.reason).toBe("cache");
    expect((await suite.api("PUT", "/v1/ratelimits/policies/http-pen/overrides/k-*", { limit: 50, valid_from: next })).status).toBe(200);
    expect((await check("http-pen", "k-1")).json).toMatchObject({ allowed: true, reason: "limit", limit: 50 });
    expect((await suite.api("GET", "/v1/ratelimits/policies/http-pen/overrides/k-*")).json.items).toHaveLength(2);
    expect((await suite.api("DELETE", "/v1/ratelimits/policies/http-pen/overrides/k-*")).status).toBe(204);
    expect((await check("http-pen", "k-1")).json.limit).toBe(100);
    const [{ l }] = await sql<{ l: number[] }>(suite.db, "SELECT pattern_prefix_lengths AS l FROM ratelimit_policies WHERE name = 'http-pen'");
    expect(l).toEqual([]);
    const audit = await sql<{ action: string }>(
      suite.db,
      "SELECT action FROM admit_audit WHERE target = 'http-pen' AND action LIKE 'ratelimits.override.%' ORDER BY id",
    );
    expect(audit.map((a) => a.action)).toContain("ratelimits.override.delete");
  });

  it("1 000 simultaneous checks of a key under tenant-42:* (limit 100) beside 999 other patterns: exactly 100 admitted", async () => {
    await putPolicy("burst", { algorithm: "fixed_window", limit: 5, window_ms: YEAR, timeout_ms: 30_000 });
    await c.query("SELECT admit_ratelimit_put_override('burst', 'tenant-' || i || ':*', 7, now() - interval '1 day', NULL) FROM generate_series(1000, 1998) i");
    const o = await suite.api("PUT", "/v1/ratelimits/policies/burst/overrides/tenant-42:*", {
      limit: 100,
      valid_from: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(o.status).toBe(201);
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM ratelimit_overrides WHERE policy = 'burst' AND pattern");
    expect(n).toBe(1000);
    const results = await Promise.all(Array.from({ length: 1000 }, () => check("burst", "tenant-42:k")));
    const statuses = results.map((r) => r.status);
    const admitted = statuses.filter((s) => s === 200).length;
    console.log("pattern burst:", { admitted, refused: statuses.filter((s) => s === 429).length, other: statuses.filter((s) => s !== 200 && s !== 429) });
    expect(admitted).toBe(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(900);
    expect(results.every((r) => r.json.limit === 100)).toBe(true);
    expect(await sql(suite.db, "SELECT consumed::int, admitted::int FROM ratelimit_counters WHERE policy = 'burst' AND key = 'tenant-42:k'")).toEqual([
      { consumed: 100, admitted: 100 },
    ]);
    const usage = (await suite.api("GET", "/v1/ratelimits/usage?policy=burst&key=tenant-42:k")).json;
    expect(usage.limit).toBe(100);

    // The checks' look-up with patterns present (admit_ratelimit_override_bounds, planned generically
    // as it plans itself): one index, (policy, prefix, lower(valid)).
    const [{ l }] = await sql<{ l: number[] }>(suite.db, "SELECT pattern_prefix_lengths AS l FROM ratelimit_policies WHERE name = 'burst'");
    expect(l).toEqual([10, 12]);
    await c.query("ANALYZE ratelimit_overrides");
    expect(await lookupIndexes("burst", "tenant-42:k", l)).toEqual(["ratelimit_overrides_by_prefix"]);
  }, 240_000);

  it("a policy's 1 000 pattern overrides added after the last ANALYZE: a check still reads only the overrides of the key's prefixes", async () => {
    // Statistics that do not know the policy yet, as between a bulk load of overrides and
    // autovacuum's next ANALYZE: the planner then believes the policy has one override. A look-up
    // that leaves the choice of index to that belief reads every override of the policy.
    await putPolicy("known", { algorithm: "fixed_window", limit: 5, window_ms: YEAR });
    await c.query("SELECT admit_ratelimit_put_override('known', 'other-' || i || ':*', 7, now() - interval '1 day', NULL) FROM generate_series(1, 200) i");
    await c.query("ALTER TABLE ratelimit_overrides SET (autovacuum_enabled = false)");
    try {
      await c.query("ANALYZE ratelimit_overrides");
      await putPolicy("fresh", { algorithm: "fixed_window", limit: 5, window_ms: YEAR });
      await c.query(
        "SELECT admit_ratelimit_put_override('fresh', 'tenant-' || i || ':*', 7, now() - interval '1 day', NULL) FROM generate_series(1000, 1999) i",
      );
      const [{ l }] = await sql<{ l: number[] }>(suite.db, "SELECT pattern_prefix_lengths AS l FROM ratelimit_policies WHERE name = 'fresh'");
      expect(await lookupIndexes("fresh", "tenant-1042:k", l)).toEqual(["ratelimit_overrides_by_prefix"]);
      // A check as the Worker sends it, counted by the statistics of its own transaction: the override
      // rows it fetched (the key's prefixes, probed before and in the check: a handful), not the
      // policy's 1 000.
      await c.query("BEGIN");
      try {
        const { rows } = await c.query("SELECT admit_ratelimit_check('fresh', 'tenant-1042:k', 1, NULL, 1000, p_edge => true) AS r");
        expect(rows[0].r).toMatchObject({ allowed: true, limit: 7 });
        const { rows: read } = await c.query(
          "SELECT (coalesce(idx_tup_fetch, 0) + seq_tup_read)::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'ratelimit_overrides'",
        );
        console.log("override rows fetched by one check:", read[0].n);
        expect(read[0].n).toBeLessThanOrEqual(10);
      } finally {
        await c.query("ROLLBACK");
      }
    } finally {
      await c.query("ALTER TABLE ratelimit_overrides RESET (autovacuum_enabled)");
    }
  }, 240_000);

  it("without patterns, the check's look-up is the key's own, on the EXCLUDE constraint's index", async () => {
    await putPolicy("plain", { algorithm: "fixed_window", limit: 5, window_ms: YEAR });
    await c.query("SELECT admit_ratelimit_put_override('plain', 'k' || i, 7, now() - interval '1 day', NULL) FROM generate_series(1, 1000) i");
    expect(await lookupIndexes("plain", "k42", [])).toEqual(["ratelimit_overrides_no_overlap"]);
  }, 240_000);
});
