// A key bounded by name patterns sees nothing of the names it may not read: not in a list's items,
// its page lengths or its cursors (every list of the document that filters by name, so a new one is
// covered when it lands), not in the keys or the audit log, and not in errors (a reservation by id
// on a hidden resource answers as an unknown id; a hidden name asked for by name answers as a
// missing one would). Names are chosen so that '_' and '%' in a pattern are literal (SQL LIKE's
// wildcards are escaped) and hidden names sort before, between and after the visible ones.

import { decodeBase64Url } from "hono/utils/encode";
import { describe, expect, it } from "vitest";
import { client, servedApp, until } from "../support";
import { newSecret } from "../webhooks/webhooks.support";

// Counts flush at once, so /metrics shows a check as soon as it is answered.
const suite = servedApp("visibility", { METRICS_FLUSH_MS: "0" });
const PATTERN = "v_*";
const VISIBLE = ["v_a", "v_c", "v_e"];
/** Outside "v_*": "vxb" and "v-d" would match were '_' LIKE's any-character. */
const HIDDEN = ["a-hidden", "internal-billing", "v-d", "vxb", "zz-hidden"];
const as = (secret: string) => client(suite.server.url, secret);

async function mint(scopes: string[], names: string[] | null, label = "visibility") {
  const res = await suite.api("POST", "/v1/keys", { name: label, scopes, ...(names ? { names } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; secret: string };
}

/** The hidden names a text mentions, also inside a base64url cursor. */
function leaked(text: string): string[] {
  const found = HIDDEN.filter((h) => text.includes(h));
  for (const m of text.matchAll(/"next_cursor":"([^"]+)"/g)) {
    let decoded = "";
    try {
      decoded = new TextDecoder().decode(decodeBase64Url(m[1]));
    } catch {
      /* a plain name */
    }
    found.push(...HIDDEN.filter((h) => decoded.includes(h)));
  }
  return found;
}

/** Each list bounded by names: how to make a named thing, the list's path (when the document's has a parameter) and its items' name field. */
const LISTS: Record<string, { scope: string; make(name: string): [string, string, unknown]; field: string; path?: string }> = {
  "/v1/ratelimits/policies": {
    scope: "ratelimits:read",
    make: (n) => ["PUT", `/v1/ratelimits/policies/${n}`, { algorithm: "fixed_window", limit: 5, window_ms: 3_600_000 }],
    field: "name",
  },
  "/v1/locks": { scope: "locks:read", make: (n) => ["POST", `/v1/locks/${n}/acquire`, { holder: "h", ttl_ms: 600_000 }], field: "key" },
  "/v1/semaphores": { scope: "semaphores:read", make: (n) => ["PUT", `/v1/semaphores/${n}`, { permits: 2 }], field: "name" },
  // An entry of the deny list scoped to a policy: the policies above, made first, are its names.
  "/v1/ratelimits/lists/{list}": {
    scope: "ratelimits:read",
    make: (n) => ["PUT", "/v1/ratelimits/lists/deny", { kind: "key", value: "abuser", policy: n }],
    field: "policy",
    path: "/v1/ratelimits/lists/deny",
  },
  "/v1/webhooks/sources": { scope: "webhooks:read", make: (n) => ["PUT", `/v1/webhooks/sources/${n}`, { secret: newSecret() }], field: "source" },
  // The resource is a required query name, checked before the list: its items are all of it.
  "/v1/reservations": {
    scope: "reservations:read",
    make: (n) => ["POST", "/v1/reservations", { resource: n, holder: "h", start: "2040-01-01T00:00:00Z", end: "2040-01-02T00:00:00Z" }],
    field: "resource",
  },
};

describe("lists", () => {
  it("the table covers every list of the document that leaves out names", async () => {
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const lists = Object.entries<Record<string, any>>(doc.paths)
      .filter(([, item]) => String(item.get?.["x-names"] ?? "").includes("a list"))
      .map(([p]) => p);
    expect(lists.sort()).toEqual(Object.keys(LISTS).sort());
  });

  it("pages hold only visible names, full while more follow; no item, cursor or page length tells of a hidden name", async () => {
    const wrong: string[] = [];
    for (const [list, t] of Object.entries(LISTS)) {
      if (list === "/v1/reservations") continue; // below: one resource per list
      for (const n of [...VISIBLE, ...HIDDEN]) {
        const [method, path, body] = t.make(n);
        const res = await suite.api(method, path, body);
        expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
      }
      const key = await mint([t.scope], [PATTERN]);
      for (const limit of [1, 2, 100]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const res = await as(key.secret)("GET", `${t.path ?? list}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
          expect(res.status, res.text).toBe(200);
          if (leaked(res.text).length) wrong.push(`${list} limit ${limit}: ${leaked(res.text).join(", ")} in ${res.text.slice(0, 300)}`);
          const names = res.json.items.map((i: Record<string, string>) => i[t.field]);
          if (res.json.next_cursor !== null && names.length !== limit) wrong.push(`${list} limit ${limit}: a page of ${names.length} before the last`);
          seen.push(...names);
          cursor = res.json.next_cursor;
          pages++;
        } while (cursor && pages < 10);
        if (JSON.stringify(seen) !== JSON.stringify(VISIBLE)) wrong.push(`${list} limit ${limit}: saw ${JSON.stringify(seen)}`);
        if (pages !== Math.ceil(VISIBLE.length / limit)) wrong.push(`${list} limit ${limit}: ${pages} pages for ${VISIBLE.length} names`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("reservations: the list of a visible resource is all of it; of a hidden one, 403 naming only the name asked for, whether it exists or not", async () => {
    for (const n of ["v_r", "internal-r"]) expect((await suite.api(...LISTS["/v1/reservations"].make(n))).status).toBe(201);
    const key = await mint(["reservations:read"], [PATTERN]);
    const mine = await as(key.secret)("GET", "/v1/reservations?resource=v_r");
    expect(mine.json.items.map((r: { resource: string }) => r.resource)).toEqual(["v_r"]);
    const there = await as(key.secret)("GET", "/v1/reservations?resource=internal-r");
    const absent = await as(key.secret)("GET", "/v1/reservations?resource=internal-s");
    expect([there.status, absent.status]).toEqual([403, 403]);
    expect({ ...there.json, name: 0, detail: 0 }).toEqual({ ...absent.json, name: 0, detail: 0 });
  });

  it("'%' and '\\' in a pattern are literal too", async () => {
    const names = ["p%1", "pz1", "q\\x", "q\\", "qx"];
    for (const n of names) expect((await suite.api("PUT", `/v1/semaphores/${encodeURIComponent(n)}`, { permits: 1 })).status).toBe(201);
    const key = await mint(["semaphores:read"], ["p%*", "q\\*"]);
    const res = await as(key.secret)("GET", "/v1/semaphores?limit=1000");
    expect(res.status, res.text).toBe(200);
    expect(res.json.items.map((s: { name: string }) => s.name)).toEqual(["p%1", "q\\", "q\\x"]);
  });
});

describe("one thing by name or by id", () => {
  it("a hidden name asked for by name: the same 403 as a name that names nothing (it says only the name asked for)", async () => {
    for (const n of ["internal-billing", "v_a"]) await suite.api("PUT", `/v1/semaphores/${n}`, { permits: 1 });
    const key = await mint(["semaphores:read"], [PATTERN]);
    const there = await as(key.secret)("GET", "/v1/semaphores/internal-billing");
    const absent = await as(key.secret)("GET", "/v1/semaphores/internal-nothing");
    expect([there.status, absent.status]).toEqual([403, 403]);
    expect(there.json.detail.replace("internal-billing", "X")).toBe(absent.json.detail.replace("internal-nothing", "X"));
  });

  it("a reservation on a hidden resource, by id: the same 404 as an id that names nothing, for GET and DELETE, and it stays", async () => {
    const made = await suite.api(...LISTS["/v1/reservations"].make("internal-room"));
    expect(made.status).toBe(201);
    const unknown = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
    const reader = await mint(["reservations:read", "reservations:decide"], [PATTERN]);
    for (const method of ["GET", "DELETE"]) {
      const hidden = await as(reader.secret)(method, `/v1/reservations/${made.json.id}`);
      const missing = await as(reader.secret)(method, `/v1/reservations/${unknown}`);
      expect(hidden.status, hidden.text).toBe(404);
      expect(missing.status).toBe(404);
      expect(hidden.text.replace(made.json.id, "ID")).toBe(missing.text.replace(unknown, "ID"));
    }
    expect((await suite.api("GET", `/v1/reservations/${made.json.id}`)).json.status).toBe("active");
  });
});

describe("keys and the audit log", () => {
  it("a bounded key lists and reads only keys whose patterns lie within its own; another is an unknown id (GET, rotate)", async () => {
    const reader = await mint(["keys:admin"], [PATTERN], "reader");
    const within = await mint(["ratelimits:read"], ["v_a", "v_*"], "within");
    const unbounded = await mint(["ratelimits:read"], null, "unbounded");
    const outside = await mint(["ratelimits:read"], ["internal-billing"], "outside");
    const partly = await mint(["ratelimits:read"], ["v_a", "vxb"], "partly");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await as(reader.secret)("GET", `/v1/keys?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(leaked(res.text)).toEqual([]);
      if (res.json.next_cursor) expect(res.json.items).toHaveLength(1);
      seen.push(...res.json.items.map((k: { id: string }) => k.id));
      cursor = res.json.next_cursor;
    } while (cursor);
    expect(seen.filter((id) => [reader.id, within.id, unbounded.id, outside.id, partly.id].includes(id))).toEqual([reader.id, within.id]);
    const unknown = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
    const missing = await as(reader.secret)("GET", `/v1/keys/${unknown}`);
    for (const hidden of [unbounded, outside, partly]) {
      for (const [method, path] of [
        ["GET", `/v1/keys/${hidden.id}`],
        ["POST", `/v1/keys/${hidden.id}/rotate`],
      ]) {
        const res = await as(reader.secret)(method, path, method === "POST" ? {} : undefined);
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
        expect(res.text.replace(hidden.id, "ID")).toBe(missing.text.replace(unknown, "ID"));
      }
    }
    expect((await as(reader.secret)("GET", `/v1/keys/${within.id}`)).status).toBe(200);
    // The root token and a key without patterns see every key.
    const all = await mint(["keys:read"], null);
    for (const api of [suite.api, as(all.secret)]) expect((await api("GET", `/v1/keys/${outside.id}`)).status).toBe(200);
  });

  it("a bounded key's audit log: rows on names it may read and on keys it sees, nothing else, on every page", async () => {
    for (const n of [...VISIBLE, ...HIDDEN]) await suite.api("PUT", `/v1/ratelimits/policies/${n}`, { algorithm: "fixed_window", limit: 7, window_ms: 60_000 });
    const auditor = await mint(["audit:read"], [PATTERN], "auditor");
    const hiddenKey = await mint(["ratelimits:read"], ["internal-*"], "hidden-key");
    const rows: Array<{ action: string; target: string }> = [];
    let cursor: string | null = null;
    do {
      const res = await as(auditor.secret)("GET", `/v1/audit?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(leaked(res.text)).toEqual([]);
      if (res.json.next_cursor) expect(res.json.items).toHaveLength(3);
      rows.push(...res.json.items);
      cursor = res.json.next_cursor;
    } while (cursor);
    const policyRows = rows.filter((r) => r.action === "ratelimits.policy.put").map((r) => r.target);
    expect([...new Set(policyRows)].sort()).toEqual(VISIBLE);
    const keyRows = rows.filter((r) => r.action.startsWith("keys."));
    expect(keyRows.map((r) => r.target)).toContain(auditor.id);
    expect(keyRows.map((r) => r.target)).not.toContain(hiddenKey.id);
    // Asked for by target: a hidden one has no rows, as a name never written.
    const byTarget = await as(auditor.secret)("GET", "/v1/audit?target=internal-billing");
    expect(byTarget.json).toEqual({ items: [], next_cursor: null });
    expect((await suite.api("GET", "/v1/audit?target=internal-billing")).json.items.length).toBeGreaterThan(0);
  });
});

describe("metrics", () => {
  it("a bounded key's /metrics has no series labelled with a name outside its patterns", async () => {
    for (const n of ["v_m", "internal-m"]) {
      expect((await suite.api("PUT", `/v1/ratelimits/policies/${n}`, { algorithm: "fixed_window", limit: 5, window_ms: 60_000 })).status).toBeLessThan(300);
      expect((await suite.api("POST", "/v1/ratelimits/check", { policy: n, key: "k" })).status).toBe(200);
    }
    await until(async () => (await suite.api("GET", "/metrics")).text.includes('policy="internal-m"'), 20_000, "the checks counted");
    const key = await mint(["metrics:read"], [PATTERN]);
    const res = await as(key.secret)("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toContain('policy="v_m"');
    expect(res.text).not.toContain("internal-m");
    expect(res.text).toContain("# HELP admit_ratelimit_decisions_total");
  });
});
