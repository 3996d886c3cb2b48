// The coalescer with stand-in statements the tests answer by hand (coalesce.test.ts,
// coalesce.budgets.test.ts): they record what they were asked, over which handle, with how much time.
import { type BatchKind, type CoalesceLimits, Coalescer } from "../../functions/core/coalesce";
import type { Queryable } from "../../functions/core/db";

export interface Item {
  id: number;
  key: string;
  exclusive?: boolean;
}

/** A statement the test answers by hand. */
export interface Sent {
  items: number[];
  together: boolean;
  /** The time it was given (ms), and the handle it was sent over. */
  withinMs: number | undefined;
  db: Queryable;
  answer(err?: unknown): void;
}

/** Two ways, the second open at once (`stallMs: () => 0`) unless a test says otherwise. */
export function harness(given: Partial<CoalesceLimits> = {}, coalesceKey: string | null = "db") {
  const limits: CoalesceLimits = { inFlight: 2, batch: 64, stallMs: () => 0, ...given };
  const sent: Sent[] = [];
  const statement = (items: Item[], together: boolean, withinMs: number | undefined, db: Queryable) =>
    new Promise<string[]>((resolve, reject) => {
      sent.push({
        items: items.map((i) => i.id),
        together,
        withinMs,
        db,
        answer: (err) => (err ? reject(err) : resolve(items.map((i) => `answer ${i.id}`))),
      });
    });
  const kind: BatchKind<Item, string> = {
    alone: async (db, item, withinMs) => (await statement([item], false, withinMs, db))[0],
    together: (db, items, withinMs) => statement(items, true, withinMs, db),
    group: (i) => i.key,
    exclusive: (i) => i.exclusive === true,
    write: () => true,
  };
  const coalescer = new Coalescer(kind, limits);
  const db: Queryable = { query: async () => [], lockTimeoutMs: 1000, coalesceKey: coalesceKey ?? undefined, remainingMs: () => 5_000 };
  return { sent, coalescer, db };
}

export const tick = () => new Promise((r) => setTimeout(r, 0));

/** A request's own handle: its budget, and the work it was asked to keep open after it answered. */
export function handle(remainingMs: number) {
  const kept: Promise<unknown>[] = [];
  const end = Date.now() + remainingMs;
  const db: Queryable = {
    query: async () => [],
    lockTimeoutMs: 1000,
    coalesceKey: "db",
    remainingMs: () => end - Date.now(),
    keepAlive: (work) => void kept.push(work),
  };
  return { db, kept };
}
