// This isolate's copy of the deny and allow lists, and the one decision made from it. A check never
// costs a statement for the lists: every live entry is loaded with ONE statement
// (admit_ratelimit_lists_load, on a database handle of its own, shared by every check waiting for it:
// single flight) and matched in memory.
//
// The bound: a copy is used while it is younger than LISTS_BOUND_MS (5 s, the API keys' CACHE_MS),
// counted from the moment its load was SENT, so what a check sees is never older than that. From
// LISTS_REFRESH_MS (2 s) on, a check that finds the copy still usable answers from it and starts a
// refresh in the background (stale-while-revalidate): under steady traffic no check waits for a
// load. Only a cold isolate, or one idle past the bound, waits for one. An entry's expiry is kept as
// the remaining lifetime the database measured, so it lapses here on this isolate's own clock, at the
// latest at that moment, between loads too. A write through this isolate (PUT/DELETE
// /v1/ratelimits/lists/…) drops the copy and every load in flight: its next check loads afresh.
import { CACHE_MS } from "../../core/apikeys";
import { ownWait } from "../../core/db";
import type { Bindings } from "../../core/env";
import { contains, type Network, parseAddress, parseNetwork } from "./ip";
import { type LoadedEntry, loadLists } from "./sql";

export const LISTS_BOUND_MS = CACHE_MS;
export const LISTS_REFRESH_MS = 2_000;
/** The longest a check waits for a load (its own or the one it joined); past it the check's budget decides. */
const LOAD_WAIT_MS = 5_000;

/** An entry a check matched: which list, its scope, what matched and why it is there. */
export interface ListMatch {
  list: "deny" | "allow";
  policy: string | null;
  kind: LoadedEntry["kind"];
  value: string;
  reason: string | null;
}

interface Entry extends ListMatch {
  /** This isolate's clock (ms) from which the entry no longer applies (Infinity: no expiry). */
  until: number;
  net?: Network;
}

/** What a check is matched on: the key, and the client's address and country when the entrance knows them. */
export interface ListSubject {
  key: string;
  ip?: string;
  country?: string;
}

/** One loaded copy of both lists. */
export class ListSnapshot {
  private readonly entries: Entry[];
  constructor(
    rows: LoadedEntry[],
    /** This isolate's clock when the load was sent. */
    readonly asked: number,
  ) {
    this.entries = [];
    for (const r of rows) {
      const until = r.expires_in_ms === null ? Number.POSITIVE_INFINITY : asked + Number(r.expires_in_ms);
      const e: Entry = { list: r.list, policy: r.policy, kind: r.kind, value: r.value, reason: r.reason, until };
      if (r.kind === "ip") {
        const net = parseNetwork(r.value);
        if (!net) continue; // Postgres wrote it as cidr text, which parseNetwork reads; never skipped in practice.
        e.net = net;
      }
      this.entries.push(e);
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The decision of the lists for a check of `policies` (1–8) at `now`: a deny entry of any of them
   * (or global) refuses the check; else, when every policy has an allow entry (its own or global), it
   * is allowed without counting; else null (the limits decide). Deny wins over allow, so an entry
   * that blocks at once cannot be undone by a broad allow.
   */
  decide(policies: string[], s: ListSubject, now: number): ListMatch | null {
    if (this.entries.length === 0) return null;
    const address = s.ip ? parseAddress(s.ip) : null;
    const country = s.country?.toUpperCase();
    let globalAllow: Entry | null = null;
    const allowed = new Map<string, Entry>();
    for (const e of this.entries) {
      if (e.until <= now) continue;
      if (e.policy !== null && !policies.includes(e.policy)) continue;
      if (!matches(e, s.key, address, country)) continue;
      if (e.list === "deny") return publicOf(e);
      if (e.policy === null) globalAllow ??= e;
      else if (!allowed.has(e.policy)) allowed.set(e.policy, e);
    }
    if (globalAllow) return publicOf(globalAllow);
    if (policies.length > 0 && policies.every((p) => allowed.has(p))) return publicOf(allowed.get(policies[0])!);
    return null;
  }
}

function matches(e: Entry, key: string, address: Uint8Array | null, country: string | undefined): boolean {
  switch (e.kind) {
    case "key":
      return key === e.value;
    case "prefix":
      return key.startsWith(e.value);
    case "ip":
      return address !== null && contains(e.net!, address);
    case "country":
      return country === e.value;
  }
}

function publicOf(e: Entry): ListMatch {
  return { list: e.list, policy: e.policy, kind: e.kind, value: e.value, reason: e.reason };
}

/** One isolate's copy of the lists of one database; `load` and `now` are parameters so tests can count and drive the clock. */
export class ListCache {
  private snapshot: ListSnapshot | null = null;
  private inFlight: Promise<ListSnapshot> | null = null;
  /** Bumped by forget(): a load sent before it is not kept (its copy may predate this isolate's write). */
  private generation = 0;
  /** Loads sent by this cache. */
  loads = 0;

  constructor(
    private readonly env: Bindings,
    private readonly load: (env: Bindings) => Promise<LoadedEntry[]> = loadLists,
    private readonly now: () => number = Date.now,
    private readonly boundMs = LISTS_BOUND_MS,
    private readonly refreshMs = LISTS_REFRESH_MS,
  ) {}

  /**
   * A copy younger than the bound: the one held (refreshed in the background past refreshMs), else
   * one loaded now. `keepAlive` keeps a background refresh running after the response (waitUntil).
   */
  async current(keepAlive?: (p: Promise<unknown>) => void): Promise<ListSnapshot> {
    const s = this.snapshot;
    const age = s ? this.now() - s.asked : Number.POSITIVE_INFINITY;
    if (s && age < this.boundMs) {
      if (age >= this.refreshMs && !this.inFlight) {
        const p = this.refresh().catch((err) => console.error("ratelimit lists: background load failed", err));
        keepAlive?.(p);
      }
      return s;
    }
    return ownWait(this.inFlight ?? this.refresh(), LOAD_WAIT_MS);
  }

  private refresh(): Promise<ListSnapshot> {
    const asked = this.now();
    const generation = this.generation;
    this.loads++;
    const p: Promise<ListSnapshot> = this.load(this.env)
      .then((rows) => {
        const snap = new ListSnapshot(rows, asked);
        if (generation === this.generation && (this.snapshot === null || this.snapshot.asked <= asked)) this.snapshot = snap;
        return snap;
      })
      .finally(() => {
        if (this.inFlight === p) this.inFlight = null;
      });
    this.inFlight = p;
    return p;
  }

  /** This isolate changed a list: drop the copy and any load in flight; the next check loads afresh. */
  forget(): void {
    this.generation++;
    this.snapshot = null;
    this.inFlight = null;
  }
}

const caches = new Map<string, ListCache>();

/** This isolate's list cache for env's database (null without one: nothing to load from, no lists). */
export function listCacheFor(env: Bindings | undefined): ListCache | null {
  if (!env?.DATABASE_URL) return null;
  const id = `${env.DATABASE_URL}\u0000${env.NEON_WS_PROXY ?? ""}`;
  let c = caches.get(id);
  if (!c) caches.set(id, (c = new ListCache(env)));
  return c;
}

/** Every list cache of this isolate forgets its copy (a write through this isolate). */
export function forgetLists(): void {
  for (const c of caches.values()) c.forget();
}
