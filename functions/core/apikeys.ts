// API keys: the secret's form and hash, and this isolate's cache of verified keys, so a decision
// costs no database request for its key in steady state.
//
// A secret is `admit_` + 43 characters of base64url (32 random bytes, 256 bits). Postgres stores its
// SHA-256 only (schema/current/keys.sql and docs/api-keys.md say why a fast hash is the right one). On a request
// with a key this isolate has not verified in the last CACHE_MS, one look-up (admit_key_lookup, by
// hash) answers for every request waiting on the same secret at that moment (single flight); its
// answer — the key's scopes and names, or "not a valid key" — is kept for CACHE_MS at most, and never
// past the key's or the secret's own expiry (measured on the database's clock: the look-up returns
// how many ms are left). So a revocation, an expiry or a rotation's end reaches every isolate within
// CACHE_MS (5 s); this isolate's own DELETE /v1/keys/{id} and rotations take effect at once: they
// drop the key's entries and every look-up in flight, whose answer may predate them (below).
import { DEFAULT_BUDGET_MS, ownWait, RequestDb } from "./db";
import type { Bindings } from "./env";

export const KEY_PREFIX = "admit_";
/** How long a verified (or refused) secret is believed without asking Postgres again: the revocation bound. */
export const CACHE_MS = 5_000;
/** The longest a request waits for a key look-up (its own or the one it joined): the default request budget. */
const LOOKUP_WAIT_MS = DEFAULT_BUDGET_MS;
/** At most this many secrets are remembered; the oldest goes first. */
export const CACHE_MAX = 10_000;
/** Characters of a secret shown in lists: the prefix and 6 more. */
export const START_LENGTH = KEY_PREFIX.length + 6;

export interface KeyCaller {
  kind: "key";
  id: string;
  name: string;
  scopes: string[];
  /** Name patterns, or null: any name. */
  names: string[] | null;
}
export type Caller = { kind: "root" } | KeyCaller | { kind: "binding" };

/** A fresh secret: `admit_` + base64url of 32 random bytes. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return KEY_PREFIX + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function looksLikeKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX) && token.length === KEY_PREFIX.length + 43;
}

/** SHA-256 of the secret's UTF-8 bytes, as the `\x…` hex Postgres reads as bytea. */
export async function secretHash(secret: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
  let hex = "\\x";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

interface Entry {
  caller: KeyCaller | null;
  /** This isolate's clock (ms) after which the entry is not used. */
  until: number;
}

interface LookupRow {
  id: string;
  name: string;
  scopes: string[];
  names: string[] | null;
  valid_ms: number | null;
}

/** The per-isolate cache; `now` and `lookup` are parameters so tests can drive the clock and count. */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<KeyCaller | null>>();
  /**
   * Bumped by every forgetKey(). A look-up's answer is kept only if no forgetKey() came while it was
   * in flight: its snapshot may predate this isolate's revocation or rotation, and believing it
   * would bring the key back for up to CACHE_MS.
   */
  private generation = 0;
  /** Look-ups sent to the database by this cache (each reached Postgres unless it failed). */
  lookups = 0;

  constructor(
    private readonly lookup: (secret: string, env: Bindings) => Promise<LookupRow | null> = lookupKey,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = CACHE_MS,
    private readonly max = CACHE_MAX,
  ) {}

  /** The key a secret belongs to, or null (unknown, revoked or expired alike). */
  async verify(secret: string, env: Bindings): Promise<KeyCaller | null> {
    const hit = this.entries.get(secret);
    if (hit) {
      if (hit.until > this.now()) return hit.caller;
      this.entries.delete(secret);
    }
    let pending = this.inFlight.get(secret);
    if (!pending) {
      const asked = this.now();
      const generation = this.generation;
      this.lookups++;
      const lookup: Promise<KeyCaller | null> = this.lookup(secret, env)
        .then((row) => {
          const caller: KeyCaller | null = row && { kind: "key", id: row.id, name: row.name, scopes: row.scopes, names: row.names };
          const lifetime = row?.valid_ms == null ? this.ttlMs : Math.min(this.ttlMs, row.valid_ms);
          // Its waiters asked before the forgetKey() and take its answer; the cache does not.
          if (generation === this.generation) this.remember(secret, { caller, until: asked + lifetime });
          return caller;
        })
        .finally(() => {
          if (this.inFlight.get(secret) === lookup) this.inFlight.delete(secret);
        });
      pending = lookup;
      this.inFlight.set(secret, pending);
    }
    return ownWait(pending, LOOKUP_WAIT_MS);
  }

  private remember(secret: string, entry: Entry): void {
    this.entries.delete(secret);
    this.entries.set(secret, entry);
    // A Map iterates in insertion order: the first key is the oldest.
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  /**
   * Forgets every secret of the keys `ids` (this isolate revoked or rotated them), and every look-up
   * in flight: a secret's key is known only once its look-up answers, and an answer read before the
   * change must not be kept. A request arriving from now on asks Postgres afresh.
   */
  forgetKey(...ids: string[]): void {
    this.generation++;
    this.inFlight.clear();
    const gone = new Set(ids);
    for (const [secret, e] of this.entries) if (e.caller && gone.has(e.caller.id)) this.entries.delete(secret);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** One look-up of a secret's hash, on a database handle of its own (shared by every request waiting for it). */
async function lookupKey(secret: string, env: Bindings): Promise<LookupRow | null> {
  const db = new RequestDb(env);
  try {
    const [{ k }] = await db.query<{ k: LookupRow | null }>("SELECT admit_key_lookup($1::bytea) AS k", [await secretHash(secret)]);
    return k;
  } finally {
    await db.close();
  }
}

/** This isolate's cache of verified keys. */
export const keyCache = new KeyCache();
