// The commands that read or change Admit over HTTP: keys, audit, usage, check. Each answers a table
// (or one record) for people and the API's JSON with --json, and returns its exit code.
import { type Api, all, expectOk, type Json } from "./api.js";
import { CliError, EXIT, intFlag, type Output, record, table } from "./cli.js";

const KEY_COLUMNS = ["id", "name", "scopes", "names", "expires_at", "revoked_at", "last_used_at"];

function need(v: string | undefined, what: string, usage: string): string {
  if (!v) throw new CliError(`missing ${what}: ${usage}`, EXIT.usage);
  return v;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function keyId(v: string | undefined, sub: string): string {
  const id = need(v, "the key's id", `admit keys ${sub} <id>`);
  if (!UUID.test(id)) throw new CliError(`${JSON.stringify(id)} is not a key id (a UUID, as admit keys list shows)`, EXIT.usage);
  return id;
}

export interface KeyFlags {
  name?: string;
  scope?: string[];
  names?: string[];
  "expires-at"?: string;
  "overlap-ms"?: string;
}

export async function keys(call: Api, sub: string, args: string[], f: KeyFlags, out: Output): Promise<number> {
  switch (sub) {
    case "create": {
      const name = need(f.name, "--name", "admit keys create --name gateway --scope ratelimits:check");
      if (!f.scope?.length) throw new CliError("missing --scope: give one or more, e.g. --scope ratelimits:check", EXIT.usage);
      const body: Json = { name, scopes: f.scope, ...(f.names?.length ? { names: f.names } : {}), ...(f["expires-at"] ? { expires_at: f["expires-at"] } : {}) };
      const k = expectOk(await call("POST", "/v1/keys", body), "creating the key").json as Json;
      if (out.json) out.line(JSON.stringify(k, null, 2));
      else {
        record(out, { id: k.id, name: k.name, scopes: k.scopes, names: k.names, expires_at: k.expires_at });
        out.line(`secret    ${k.secret}`);
        out.line("The secret is shown this once: keep it now.");
      }
      return EXIT.ok;
    }
    case "list": {
      const items = await all(call, "/v1/keys", "listing keys");
      table(out, items, KEY_COLUMNS, { items });
      return EXIT.ok;
    }
    case "show": {
      const k = expectOk(await call("GET", `/v1/keys/${keyId(args[0], "show")}`), "reading the key").json as Json;
      const { secrets, ...rest } = k;
      if (out.json) out.line(JSON.stringify(k, null, 2));
      else record(out, { ...rest, secrets: (secrets as Json[]).map((s) => `${s.start}… (expires ${s.expires_at ?? "never"})`).join(", ") });
      return EXIT.ok;
    }
    case "rotate": {
      const overlap = intFlag("overlap-ms", f["overlap-ms"]);
      const k = expectOk(
        await call("POST", `/v1/keys/${keyId(args[0], "rotate")}/rotate`, overlap === undefined ? {} : { overlap_ms: overlap }),
        "rotating the key",
      ).json as Json;
      if (out.json) out.line(JSON.stringify(k, null, 2));
      else {
        record(out, { id: k.id, name: k.name, secrets: (k.secrets as Json[]).map((s) => `${s.start}… (expires ${s.expires_at ?? "never"})`).join(", ") });
        out.line(`secret    ${k.secret}`);
        out.line("The new secret is shown this once; the old one works until its expiry above.");
      }
      return EXIT.ok;
    }
    case "revoke": {
      const r = expectOk(await call("DELETE", `/v1/keys/${keyId(args[0], "revoke")}`), "revoking the key").json as Json;
      if (out.json) out.line(JSON.stringify(r, null, 2));
      else {
        out.line(`revoked ${r.id ?? args[0]}`);
        for (const a of (r.also_revoked as string[] | undefined) ?? []) out.line(`revoked ${a} (made by it)`);
      }
      return EXIT.ok;
    }
  }
  throw new CliError(`unknown command: admit keys ${sub || "(none)"}; one of create, list, show, rotate, revoke (admit keys --help)`, EXIT.usage);
}

export async function audit(call: Api, f: { target?: string; key?: string; limit?: string }, out: Output): Promise<number> {
  const limit = intFlag("limit", f.limit, 1) ?? 20;
  if (limit > 1000) throw new CliError(`--limit ${limit} is over 1000`, EXIT.usage);
  const q = new URLSearchParams({ limit: String(limit), ...(f.target ? { target: f.target } : {}), ...(f.key ? { key: f.key } : {}) });
  const r = expectOk(await call("GET", `/v1/audit?${q}`), "reading the audit log").json as Json;
  const rows = (r.items as Json[]).map((e) => ({ ...e, by: e.key?.name }));
  table(out, rows, ["at", "by", "action", "target", "change"], r);
  return EXIT.ok;
}

export async function usage(call: Api, args: string[], f: { from?: string; to?: string }, out: Output): Promise<number> {
  const policy = need(args[0], "the policy", "admit usage <policy> <key>");
  const key = need(args[1], "the rate-limit key", "admit usage <policy> <key>");
  const q = new URLSearchParams({ policy, key, ...(f.from ? { from: f.from } : {}), ...(f.to ? { to: f.to } : {}) });
  const u = expectOk(await call("GET", `/v1/ratelimits/usage?${q}`), `reading the usage of ${policy}/${key}`).json as Json;
  if (out.json) {
    out.line(JSON.stringify(u, null, 2));
    return EXIT.ok;
  }
  const { windows, ...now } = u;
  record(out, now);
  if (Array.isArray(windows) && windows.length) {
    out.line("");
    table(out, windows, ["window_start", "window_end", "admitted", "attempted", "rejected", "consumed"]);
  }
  return EXIT.ok;
}

/** One rate-limit check: exit 0 when allowed, 2 when denied (the answer, not an error). It spends `cost` units like any check. */
export async function check(call: Api, args: string[], f: { cost?: string }, out: Output): Promise<number> {
  const policy = need(args[0], "the policy", "admit check <policy> <key> [--cost n]");
  const key = need(args[1], "the rate-limit key", "admit check <policy> <key> [--cost n]");
  const policies = policy.split(",");
  const cost = intFlag("cost", f.cost);
  const body = { ...(policies.length > 1 ? { policies } : { policy }), key, ...(cost === undefined ? {} : { cost }) };
  const r = expectOk(await call("POST", "/v1/ratelimits/check", body), `checking ${policy}/${key}`, [429]);
  const j = r.json as Json;
  if (out.json) out.line(JSON.stringify(j, null, 2));
  else {
    record(out, {
      allowed: j.allowed,
      policy: j.policy,
      key: j.key,
      remaining: j.remaining,
      limit: j.limit,
      reset_ms: j.reset_ms,
      ...(j.retry_after_ms !== undefined ? { retry_after_ms: j.retry_after_ms } : {}),
      ...(j.reason && j.reason !== "limit" ? { reason: j.reason } : {}),
    });
    const rl = r.headers.get("RateLimit");
    if (rl) out.line(`RateLimit: ${rl}`);
  }
  return j.allowed === false || r.status === 429 ? EXIT.negative : EXIT.ok;
}
