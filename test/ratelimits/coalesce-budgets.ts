// Two rate-limit checks of different budgets made to share one coalesced statement, against real
// Postgres, for the suites that judge a batch's budgets (ratelimits.coalesce-budgets.test.ts in Node,
// ratelimits.coalesce-budgets.runtime.test.ts in wrangler dev).
//
// Two "primer" checks wait on a counter row another session holds, which keeps both of the lane's
// ways busy (MAX_IN_FLIGHT); the short check and then the long one queue behind them (the short one
// first: it carries the batch); the primers' row is then let go, and the two go as one batch. The
// long check's own counter row is held by another session until `heldMs` after the batch left.
import { expect } from "vitest";
import { connect, sql, until } from "../support";

export const YEAR = 366 * 86_400_000;

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; headers: Headers; json: any }>;
/** The isolate's check coalescer's counters (checkCoalescing). */
type Stats = () => Promise<{ batches: number; batched: number; fallbacks: number; waiting: number }>;

export async function putPolicy(api: Api, name: string, body: Record<string, unknown>) {
  const res = await api("PUT", `/v1/ratelimits/policies/${name}`, body);
  expect([200, 201]).toContain(res.status);
}

export async function counter(db: string, policy: string, key: string) {
  const [row] = await sql<{ admitted: number; attempted: number }>(
    db,
    "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = $1 AND key = $2",
    [policy, key],
  );
  return row;
}

/** A session holding the counter row of (policy, key) until release() (once, however often called). */
async function holdRow(db: string, policy: string, key: string) {
  const holder = await connect(db);
  await holder.query("BEGIN");
  await holder.query("SELECT 1 FROM ratelimit_counters WHERE policy = $1 AND key = $2 FOR UPDATE", [policy, key]);
  let released: Promise<void> | undefined;
  return () =>
    (released ??= (async () => {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    })());
}

const waitingOnLocks = async (db: string) =>
  (await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0].n;

/**
 * A check of `short` (key "s") and then one of `long` (key "l", its counter row held), sent so that
 * they go to Postgres as one batch carried by the short one, which has waited `queuedMs` in the
 * queue by then. The long one's row is let go `heldMs` after the batch left. Their answers.
 */
export async function batchedPair(api: Api, db: string, stats: Stats, o: { short: string; long: string; queuedMs: number; heldMs: number }) {
  const check = (policy: string, key: string) => api("POST", "/v1/ratelimits/check", { policy, key });
  const prime = `${o.long}-prime`;
  await putPolicy(api, prime, { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 20_000 });
  // The counter rows exist, so they can be held.
  expect((await check(prime, "p")).status).toBe(200);
  expect((await check(o.long, "l")).status).toBe(200);
  const releasePrime = await holdRow(db, prime, "p");
  const releaseLong = await holdRow(db, o.long, "l");
  try {
    const before = await stats();
    const primers = [check(prime, "p"), check(prime, "p")];
    await until(async () => (await waitingOnLocks(db)) === 2, 20_000, "both primers waiting on their row");
    const short = check(o.short, "s");
    await until(async () => (await stats()).waiting === 1, 20_000, "the short check queued");
    const queuedAt = Date.now();
    const long = check(o.long, "l");
    await until(async () => (await stats()).waiting === 2, 20_000, "the long check queued behind it");
    await new Promise((r) => setTimeout(r, Math.max(0, queuedAt + o.queuedMs - Date.now())));
    await releasePrime();
    await until(async () => (await stats()).batches > before.batches, 20_000, "the batch sent");
    // One statement carried both: the short check and the long one.
    const sent = await stats();
    expect({ batches: sent.batches - before.batches, batched: sent.batched - before.batched }).toEqual({ batches: 1, batched: 2 });
    await new Promise((r) => setTimeout(r, o.heldMs));
    await releaseLong();
    const [s, l] = await Promise.all([short, long]);
    for (const p of primers) expect((await p).status).toBe(200);
    return { s, l, fallbacks: (await stats()).fallbacks - before.fallbacks };
  } finally {
    await releasePrime();
    await releaseLong();
  }
}
