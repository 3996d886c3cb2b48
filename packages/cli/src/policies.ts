// `admit policies plan|apply|export [--file admit-policies.json] [--prune]`: rate-limit policies,
// their overrides and the deny/allow lists (`lists`, when the file has it) kept as code, in a file of
// the team that runs the gateway (JSON, validated by the schema Admit serves at /policies.schema.json,
// shipped in this package too).
//   plan    prints what apply would change; exit 0 when nothing, 2 when something (for CI)
//   apply   makes Admit match the file: creates and updates (PUT, a full replacement, idempotent);
//           deletes policies, overrides and list entries the file does not name only with --prune. It reads
//           Admit's state itself when it runs (never a saved plan), so a change made by hand after
//           `plan` is seen and undone; then it reads again and fails if anything still differs.
//   export  writes Admit's current state in the file's form (stdout, or --file)
import { readFileSync, writeFileSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { type Api, all, expectOk, type Json } from "./api.js";
import { asset } from "./assets.js";
import { CliError, EXIT, type Output } from "./cli.js";

export interface Override {
  key: string;
  limit: number;
  valid_from: string;
  valid_to?: string | null;
  shadow?: boolean;
}
export interface Policy {
  algorithm: string;
  limit: number;
  window_ms: number;
  log?: boolean;
  history_ms?: number;
  timeout_ms?: number;
  on_unavailable?: string;
  shadow?: boolean;
  durable?: boolean;
  overrides?: Override[];
}
export interface ListEntry {
  kind: "key" | "prefix" | "ip" | "country";
  value: string;
  policy?: string | null;
  reason?: string | null;
  expires_at?: string | null;
}
export type ListName = "deny" | "allow";
export interface PoliciesFile {
  $schema?: string;
  policies: Record<string, Policy>;
  /** The deny and allow lists; absent: the file does not manage them (never pruned). */
  lists?: Partial<Record<ListName, ListEntry[]>>;
}
const LISTS: ListName[] = ["deny", "allow"];

/** The file, checked against the published schema; a CliError (exit 65) naming every problem on one line. */
export function readPolicies(file: string): PoliciesFile {
  const schema = JSON.parse(readFileSync(asset("policies.schema.json"), "utf8"));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormatsModule as unknown as (ajv: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new CliError(
      `${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); pass --file with a policies file`,
      EXIT.data,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not JSON (${(err as Error).message}): fix it or export a fresh one with admit policies export`, EXIT.data);
  }
  if (!validate(data))
    throw new CliError(
      `${file} does not follow policies.schema.json: ${(validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ")}`,
      EXIT.data,
    );
  return data as PoliciesFile;
}

/** The defaults PUT /v1/ratelimits/policies/{name} fills in (functions/ratelimits/schemas.ts). */
const DEFAULTS = { log: false, history_ms: 7 * 86_400_000, timeout_ms: 5_000, on_unavailable: "deny", shadow: false, durable: false };
const FIELDS = ["algorithm", "limit", "window_ms", "log", "history_ms", "timeout_ms", "on_unavailable", "shadow", "durable"] as const;

export type Change =
  | { op: "create-policy" | "update-policy"; name: string; body: Json; was?: Json }
  | { op: "delete-policy"; name: string }
  | { op: "put-override"; name: string; override: Override; was?: Override }
  | { op: "replace-override"; name: string; override: Override; was: Override }
  | { op: "delete-override"; name: string; override: Override }
  | { op: "put-entry"; list: ListName; entry: ListEntry; was?: ListEntry }
  | { op: "delete-entry"; list: ListName; entry: ListEntry };

/** Admit's policies, overrides and lists now, in the file's form (every field explicit). */
export async function currentState(call: Api): Promise<PoliciesFile> {
  const policies: Record<string, Policy> = {};
  for (const p of await all(call, "/v1/ratelimits/policies", "listing policies")) {
    const overrides = (await all(call, `/v1/ratelimits/policies/${encodeURIComponent(p.name)}/overrides`, `listing ${p.name}'s overrides`)).map((o) => ({
      key: o.key,
      limit: o.limit,
      valid_from: o.valid_from,
      valid_to: o.valid_to,
      ...(o.shadow ? { shadow: true } : {}),
    }));
    policies[p.name] = { ...Object.fromEntries(FIELDS.map((f) => [f, p[f]])), ...(overrides.length ? { overrides } : {}) } as Policy;
  }
  const lists: Record<ListName, ListEntry[]> = { deny: [], allow: [] };
  for (const list of LISTS) {
    for (const e of await all(call, `/v1/ratelimits/lists/${list}`, `listing the ${list} list`)) {
      const set = Object.entries({ policy: e.policy, reason: e.reason, expires_at: e.expires_at }).filter(([, v]) => v !== null);
      lists[list].push({ kind: e.kind, value: e.value, ...Object.fromEntries(set) });
    }
  }
  return { policies, lists };
}

/** An address or network as `addr[/bits]`: its family and prefix length; null when it is not one. */
function network(v: string): { addr: string; family: "ipv4" | "ipv6"; bits: number } | null {
  const [addr, bits] = v.split("/");
  const family = isIP(addr);
  if (!family) return null;
  return { addr, family: family === 4 ? "ipv4" : "ipv6", bits: bits === undefined ? (family === 4 ? 32 : 128) : Number(bits) };
}

/**
 * Whether two entries of one list are the same entry as Admit stores it: the same scope and kind, and
 * the same value — a country in any case, an address as the network it names (2001:DB8:0::/48 is the
 * stored 2001:db8::/48), compared by Node's own address parser.
 */
function sameEntry(a: ListEntry, b: ListEntry): boolean {
  if ((a.policy ?? null) !== (b.policy ?? null) || a.kind !== b.kind) return false;
  if (a.kind === "country") return a.value.toUpperCase() === b.value.toUpperCase();
  const x = a.kind === "ip" ? network(a.value) : null;
  const y = a.kind === "ip" ? network(b.value) : null;
  if (!x || !y) return a.value === b.value;
  if (x.family !== y.family || x.bits !== y.bits) return false;
  const block = new BlockList();
  block.addSubnet(x.addr, x.bits, x.family);
  return block.check(y.addr, y.family);
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
      else if (old.limit !== o.limit || (old.shadow ?? false) !== (o.shadow ?? false)) changes.push({ op: "put-override", name, override: o, was: old });
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
  // Lists: only when the file has `lists`; an entry is replaced when its reason or expiry differ.
  for (const list of desired.lists ? LISTS : []) {
    const have = [...(current.lists?.[list] ?? [])];
    for (const e of desired.lists?.[list] ?? []) {
      const i = have.findIndex((h) => sameEntry(h, e));
      const old = i < 0 ? undefined : have.splice(i, 1)[0];
      if (!old) changes.push({ op: "put-entry", list, entry: e });
      else if ((old.reason ?? null) !== (e.reason ?? null) || instant(old.expires_at) !== instant(e.expires_at))
        changes.push({ op: "put-entry", list, entry: e, was: old });
    }
    for (const e of have) {
      if (prune) changes.push({ op: "delete-entry", list, entry: e });
      else kept.push(`${list} entry ${e.kind} ${JSON.stringify(e.value)}${e.policy ? ` of ${e.policy}` : ""}`);
    }
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
      return `${c.was ? "~" : "+"} override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.override)} limit ${c.was ? `${c.was.limit} → ` : ""}${c.override.limit}${c.override.shadow ? " (shadow)" : ""}`;
    case "replace-override":
      return `~ override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.was)} → ${period(c.override)} limit ${c.override.limit}`;
    case "delete-override":
      return `- override ${c.name} ${JSON.stringify(c.override.key)} ${period(c.override)}`;
    case "put-entry":
    case "delete-entry": {
      const e = c.entry;
      const what = `${c.list} ${e.kind} ${JSON.stringify(e.value)} ${e.policy ? `of ${e.policy}` : "(global)"}`;
      if (c.op === "delete-entry") return `- ${what}`;
      return `${c.was ? "~" : "+"} ${what}${e.reason ? ` reason ${JSON.stringify(e.reason)}` : ""}${e.expires_at ? ` until ${e.expires_at}` : ""}`;
    }
  }
}

async function perform(call: Api, c: Change): Promise<void> {
  const p = (name: string) => `/v1/ratelimits/policies/${encodeURIComponent(name)}`;
  const o = (name: string, key: string) => `${p(name)}/overrides/${encodeURIComponent(key)}`;
  const putOverride = async (name: string, ov: Override) =>
    expectOk(
      await call("PUT", o(name, ov.key), { limit: ov.limit, valid_from: ov.valid_from, valid_to: ov.valid_to ?? null, shadow: ov.shadow ?? false }),
      `PUT override ${ov.key}`,
    );
  switch (c.op) {
    case "create-policy":
    case "update-policy":
      expectOk(await call("PUT", p(c.name), c.body), `PUT policy ${c.name}`);
      return;
    case "delete-policy": {
      const r = await call("DELETE", p(c.name));
      expectOk(r, `DELETE policy ${c.name}`, [404]);
      return;
    }
    case "put-override":
      await putOverride(c.name, c.override);
      return;
    case "replace-override":
    case "delete-override": {
      const old = c.op === "replace-override" ? c.was : c.override;
      const r = await call("DELETE", `${o(c.name, old.key)}?valid_from=${encodeURIComponent(old.valid_from)}`);
      expectOk(r, `DELETE override ${old.key}`, [404]);
      if (c.op === "replace-override") await putOverride(c.name, c.override);
      return;
    }
    case "put-entry": {
      const { kind, value, policy, reason, expires_at } = c.entry;
      const body = { kind, value, ...(policy ? { policy } : {}), ...(reason ? { reason } : {}), ...(expires_at ? { expires_at } : {}) };
      expectOk(await call("PUT", `/v1/ratelimits/lists/${c.list}`, body), `PUT ${c.list} entry ${value}`);
      return;
    }
    case "delete-entry": {
      const e = c.entry;
      const q = new URLSearchParams({ kind: e.kind, value: e.value, ...(e.policy ? { policy: e.policy } : {}) });
      expectOk(await call("DELETE", `/v1/ratelimits/lists/${c.list}?${q}`), `DELETE ${c.list} entry ${e.value}`, [404]);
      return;
    }
  }
}

/** Policies first (an override or entry needs its policy), deletions of overrides before their replacements. */
const ORDER: Record<Change["op"], number> = {
  "create-policy": 0,
  "update-policy": 0,
  "delete-override": 1,
  "delete-entry": 1,
  "replace-override": 2,
  "put-override": 2,
  "put-entry": 2,
  "delete-policy": 3,
};

export async function policies(call: Api, base: () => string, command: string, opts: { file?: string; prune?: boolean }, out: Output): Promise<number> {
  const file = opts.file ?? "admit-policies.json";
  if (command === "export") {
    const current = await currentState(call);
    const text = `${JSON.stringify({ $schema: `${base()}/policies.schema.json`, ...current }, null, 2)}\n`;
    if (opts.file) writeFileSync(file, text);
    else out.line(text.trimEnd());
    return EXIT.ok;
  }
  const desired = readPolicies(file);
  const prune = opts.prune ?? false;
  const { changes, kept } = diff(desired, await currentState(call), prune);
  changes.sort((a, b) => ORDER[a.op] - ORDER[b.op]);
  const report = (done: boolean) => ({ file, changes: changes.map((c) => ({ ...c, text: describe(c) })), kept, applied: done });
  if (!out.json) {
    for (const c of changes) out.line(describe(c));
    for (const k of kept) out.line(`  (not in ${file}, kept: ${k}; --prune deletes it)`);
  }
  if (command === "plan") {
    if (out.json) out.line(JSON.stringify(report(false), null, 2));
    else out.line(changes.length ? `${changes.length} change(s) to apply.` : `Admit matches ${file}.`);
    return changes.length ? EXIT.negative : EXIT.ok;
  }
  for (const c of changes) await perform(call, c);
  const after = diff(desired, await currentState(call), prune).changes;
  if (after.length) throw new CliError(`Admit still differs from ${file} after apply (changed meanwhile?): ${after.map(describe).join("; ")}`, EXIT.failed);
  if (out.json) out.line(JSON.stringify(report(true), null, 2));
  else out.line(changes.length ? `Applied ${changes.length} change(s); Admit matches ${file}.` : `No changes; Admit matches ${file}.`);
  return EXIT.ok;
}
