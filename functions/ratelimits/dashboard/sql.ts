// The SQL of the dashboard's views of one policy (its keys by denials or use, its decisions per
// minute), one typed wrapper each. (The checks and the policy and override writes are in ../sql.ts.)
import type { Queryable } from "../../core/db";

export interface KeyUsageRow {
  key: string;
  admitted: number;
  attempted: number;
  rejected: number;
  consumed: number;
}

export interface PolicyKeysRow {
  policy: string;
  window: "current" | "1h";
  order: "denied" | "used";
  from: string;
  window_end: string;
  items: KeyUsageRow[];
}

/** The keys of a policy by denials or use (at most limit + 1, after the (count, key) cursor); null when the policy does not exist. */
export async function policyKeys(
  db: Queryable,
  policy: string,
  q: { window: "current" | "1h"; order: "denied" | "used"; after: { count: string; key: string } | null; limit: number },
): Promise<PolicyKeysRow | null> {
  const [{ r }] = await db.query<{ r: PolicyKeysRow | null }>("SELECT admit_ratelimit_policy_keys($1, $2, $3, $4::bigint, $5, $6::integer) AS r", [
    policy,
    q.window,
    q.order,
    q.after?.count ?? null,
    q.after?.key ?? null,
    q.limit,
  ]);
  return r;
}

export interface DecisionMinuteRow {
  minute: string;
  allowed: number;
  denied: number;
  would_refuse: number;
  unenforced: number;
  unavailable: number;
}

/** A policy's decisions per minute (from the metric counters); null when the policy does not exist. */
export async function policyDecisions(db: Queryable, policy: string, minutes: number): Promise<DecisionMinuteRow[] | null> {
  const [{ r }] = await db.query<{ r: DecisionMinuteRow[] | null }>("SELECT admit_ratelimit_policy_minutes($1, $2::integer) AS r", [policy, minutes]);
  return r;
}
