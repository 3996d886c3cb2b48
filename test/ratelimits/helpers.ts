// What the rate-limit suites share: a policy PUT and a check over HTTP on a suite's app, and one
// check at the SQL function with the database-side clock input set (no sleeping).
import { expect } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { bindings, type connect, type servedApp, until } from "../support";

export const DAY = 86_400_000;

/** PUT a policy (201 or 200) and a check, on `suite`'s app. */
export function ratelimitApi(suite: ReturnType<typeof servedApp>) {
  async function putPolicy(name: string, body: Record<string, unknown>) {
    const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, body);
    expect([200, 201]).toContain(res.status);
    return res;
  }
  const check = (policy: string, key: string, cost?: number, info?: unknown) =>
    suite.api("POST", "/v1/ratelimits/check", { policy, key, ...(cost === undefined ? {} : { cost }), ...(info === undefined ? {} : { info }) });
  return { putPolicy, check };
}

/** One check at the SQL function with the clock input set to `at` (ISO string). */
export async function checkAt(client: Awaited<ReturnType<typeof connect>>, policy: string, key: string, cost: number, at: string) {
  const { rows } = await client.query("SELECT admit_ratelimit_check($1, $2, $3::integer, NULL, 1000, $4::timestamptz) AS r", [policy, key, cost, at]);
  return rows[0].r as { allowed: boolean; remaining: number; reset_ms: number; retry_after_ms: number | null; limit: number };
}

/**
 * Waits (bounded) until this process's tally for `db` holds nothing unflushed: a refusal the database
 * answered from a read, like a deny-cache answer, is counted (attempted, rejected) by the tally's flush.
 */
export const tallyFlushed = (db: string) => until(async () => tallyFor(bindings(db))?.idle ?? true, 30_000, "the tally to flush");
