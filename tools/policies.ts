// `npm run policies -- plan|apply|export [--file admit-policies.json] [--prune]`: rate-limit policies
// and their overrides kept as code, in a file of the team that runs the gateway (JSON, validated by
// public/policies.schema.json, which the Worker also serves at /policies.schema.json for editors).
// Against ADMIT_URL with the key in ADMIT_TOKEN (API_TOKEN, or the dev token of `npm start`, when unset).
//   plan    prints what apply would change; exit 0 when nothing, 2 when something (for CI), 1 on error
//   apply   makes Admit match the file: creates and updates (PUT, a full replacement, idempotent);
//           deletes policies and overrides the file does not name only with --prune. It reads
//           Admit's state itself when it runs (never a saved plan), so a change made by hand after
//           `plan` is seen and undone; then it reads again and fails if anything still differs.
//   export  writes Admit's current state in the file's form (stdout, or --file)
// docs/gateways.md#limits-as-code.
import { readFileSync, writeFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { devToken, ROOT } from "../dev/local";

type Json = Record<string, any>;
export interface Override {
  key: string;
  limit: number;
  valid_from: string;
  valid_to?: string | null;
}
export interface Policy {
  algorithm: string;
  limit: number;
  window_ms: number;
  log?: boolean;
  history_ms?: number;
  timeout_ms?: number;
  on_unavailable?: string;
  overrides?: Override[];
}
export interface PoliciesFile {
  $schema?: string;
  policies: Record<string, Policy>;
}

/** The defaults PUT /v1/ratelimits/policies/{name} fills in (functions/ratelimits/schemas.ts). */
const DEFAULTS = { log: false, history_ms: 7 * 86_400_000, timeout_ms: 5_000, on_unavailable: "deny" };
const FIELDS = ["algorithm", "limit", "window_ms", "log", "history_ms", "timeout_ms", "on_unavailable"] as const;

export type Change =
  | { op: "create-policy" | "update-policy"; name: string; body: Json; was?: Json }
  | { op: "delete-policy"; name: string }
  | { op: "put-override"; name: string; override: Override; was?: Override }
  | { op: "replace-override"; name: string; override: Override; was: Override }
  | { op: "delete-override"; name: string; override: Override };

/** The file, checked against the published schema; throws naming every problem. */
export function readPolicies(file: string): PoliciesFile {
  const schema = JSON.parse(readFileSync(`${ROOT}/public/policies.schema.json`, "utf8"));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormatsModule as unknown as (ajv: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  if (!validate(data))
    throw new Error(
      `${file} does not follow public/policies.schema.json:\n${(validate.errors ?? []).map((e) => `  ${e.instancePath || "/"} ${e.message}`).join("\n")}`,
    );
  return data as PoliciesFile;
}

export function api(base: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(base.replace(/\/$/, "") + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, json };
  };
}
type Api = ReturnType<typeof api>;

async function all(call: Api, path: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  do {
    const r = await call("GET", `${path}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${JSON.stringify(r.json)}`);
    items.push(...r.json.items);
    cursor = r.json.next_cursor;
  } while (cursor);
  return items;
}

/** Admit's policies and overrides now, in the file's form (every field explicit). */
export async function currentState(call: Api): Promise<PoliciesFile> {
  const policies: Record<string, Policy> = {};
  for (const p of await all(call, "/v1/ratelimits/policies")) {
    const overrides = (await all(call, `/v1/ratelimits/policies/${encodeURIComponent(p.name)}/overrides`)).map((o) => ({
      key: o.key,
      limit: o.limit,
      valid_from: o.valid_from,
      valid_to: o.valid_to,
    }));
    policies[p.name] = { ...Object.fromEntries(FIELDS.map((f) => [f, p[f]])), ...(overrides.length ? { overrides } : {}) } as Policy;
  }
  return { policies };
}

const instant = (s: string | null | undefined) => (s == null ? null : Date.parse(s));
const overrideId = (o: Override) => `${o.key}\u0000${instant(o.valid_from)}`;

/** What to do to make `current` match `desired`; deletions only when `prune`. `kept` lists what prune would delete. */
export function diff(desired: PoliciesFile, current: PoliciesFile, prune: boolean): { changes: Change[]; kept: string[] } {
  const changes: Change[] = [];
  const kept: string[] = [];
  for (const [name, want] of Object.entries(desired.policies)) {
    const have = current.policies[name];
    const body = { ...DEFAULTS, ...Object.fromEntries(FIELDS.filter((f) => want[f] !== undefined).map((f) => [f, want[f]])) };
    if (!have) changes.push({ op: "create-policy", name, body });
    else if (FIELDS.some((f) => (body as Json)[f] !== (have as Json)[f])) changes.push({ op: "update-policy", name, body, was: have });
    const haveOverrides = new Map((have?.overrides ?? []).map((o) => [overrideId(o), o]));
    for (const o of want.overrides ?? []) {
      const old = haveOverrides.get(overrideId(o));
      haveOverrides.delete(overrideId(o));
      if (!old) changes.push({ op: "put-override", name, override: o });
      else if (instant(old.valid_to) !== instant(o.valid_to)) changes.push({ op: "replace-override", name, override: o, was: old });
      else if (old.limit !== o.limit) changes.push({ op: "put-override", name, override: o, was: old });
    }
    for (const o of haveOverrides.values()) {
      if (prune) changes.push({ op: "delete-override", name, override: o });
      else kept.push(`override ${name} ${JSON.stringify(o.key)} from ${o.valid_from}`);
    }
  }
  for (const name of Object.keys(current.policies)) {
    if (name in desired.policies) continue;
    if (prune) changes.push({ op: "delete-policy", name });
    else kept.push(`policy ${name}`);
  }
  return { changes, kept };
}

export function describe(c: Change): string {
  const fields = (b: Json, was?: Json) =>
    FIELDS.filter((f) => !was || b[f] !== was[f])
      .map((f) => `${f}: ${was ? `${JSON.stringify(was[f])} → ` : ""}${JSON.stringify(b[f])}`)
      .join(", ");
  const period = (o: Override) => `[${o.valid_from}, ${o.valid_to ?? "∞"})`;
  switch (c.op) {
    case "create-policy":
      return `+ policy ${c.name} (${fields(c.body)})`;
    case "update-policy":
      return `~ policy ${c.name} (${fields(c.body, c.was)})`;
    case "delete-policy":
      return `- policy ${c.name}`;
    case "put-override":
      return `${c.was ? "~" : "+"} override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.override)} limit ${c.was ? `${c.was.limit} → ` : ""}${c.override.limit}`;
    case "replace-override":
      return `~ override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.was)} → ${period(c.override)} limit ${c.override.limit}`;
    case "delete-override":
      return `- override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.override)}`;
  }
}

async function perform(call: Api, c: Change): Promise<void> {
  const p = (name: string) => `/v1/ratelimits/policies/${encodeURIComponent(name)}`;
  const o = (name: string, key: string) => `${p(name)}/overrides/${encodeURIComponent(key)}`;
  const expectOk = (r: { status: number; json: any }, what: string) => {
    if (r.status >= 300) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.json)}`);
  };
  const putOverride = async (name: string, ov: Override) =>
    expectOk(await call("PUT", o(name, ov.key), { limit: ov.limit, valid_from: ov.valid_from, valid_to: ov.valid_to ?? null }), `PUT override ${ov.key}`);
  switch (c.op) {
    case "create-policy":
    case "update-policy":
      return expectOk(await call("PUT", p(c.name), c.body), `PUT policy ${c.name}`);
    case "delete-policy": {
      const r = await call("DELETE", p(c.name));
      if (r.status !== 404) expectOk(r, `DELETE policy ${c.name}`);
      return;
    }
    case "put-override":
      return putOverride(c.name, c.override);
    case "replace-override":
    case "delete-override": {
      const old = c.op === "replace-override" ? c.was : c.override;
      const r = await call("DELETE", `${o(c.name, old.key)}?valid_from=${encodeURIComponent(old.valid_from)}`);
      if (r.status !== 404) expectOk(r, `DELETE override ${old.key}`);
      if (c.op === "replace-override") await putOverride(c.name, c.override);
      return;
    }
  }
}

/** Policies first (an override needs its policy), deletions of overrides before their replacements. */
const ORDER: Record<Change["op"], number> = {
  "create-policy": 0,
  "update-policy": 0,
  "delete-override": 1,
  "replace-override": 2,
  "put-override": 2,
  "delete-policy": 3,
};

export async function run(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  const flag = (name: string) => rest.includes(`--${name}`);
  const option = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (!["plan", "apply", "export"].includes(command ?? "")) {
    out("usage: npm run policies -- plan|apply|export [--file admit-policies.json] [--prune]\n  env: ADMIT_URL (default http://127.0.0.1:8787), ADMIT_TOKEN");
    return 1;
  }
  const base = env.ADMIT_URL ?? `http://127.0.0.1:${env.PORT ?? 8787}`;
  const token = env.ADMIT_TOKEN ?? env.API_TOKEN ?? devToken({ create: false }) ?? "";
  const call = api(base, token);
  const file = option("file") ?? "admit-policies.json";
  const current = await currentState(call);
  if (command === "export") {
    const text = `${JSON.stringify({ $schema: `${base.replace(/\/$/, "")}/policies.schema.json`, ...current }, null, 2)}\n`;
    if (option("file")) writeFileSync(file, text);
    else out(text.trimEnd());
    return 0;
  }
  const desired = readPolicies(file);
  const prune = flag("prune");
  const { changes, kept } = diff(desired, current, prune);
  changes.sort((a, b) => ORDER[a.op] - ORDER[b.op]);
  for (const c of changes) out(describe(c));
  for (const k of kept) out(`  (not in ${file}, kept: ${k}; --prune deletes it)`);
  if (command === "plan") {
    out(changes.length ? `${changes.length} change(s) to apply.` : `Admit matches ${file}.`);
    return changes.length ? 2 : 0;
  }
  for (const c of changes) await perform(call, c);
  const after = diff(desired, await currentState(call), prune).changes;
  if (after.length) {
    out(`Admit still differs after apply (changed meanwhile?):\n${after.map(describe).join("\n")}`);
    return 1;
  }
  out(changes.length ? `Applied ${changes.length} change(s); Admit matches ${file}.` : `No changes; Admit matches ${file}.`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(process.argv.slice(2), process.env, (s) => console.log(s)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
