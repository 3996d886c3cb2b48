// Advisory-lock keys: FNV-1a 64 over the UTF-8 bytes of a namespaced string, as a signed int64
// (Postgres `bigint`): "reservation/223 345" style names, so capabilities never share a lock by
// accident. "223 345" hashes to 3755351481708176604 (test/core/lock-keys.test.ts), as in Postgres's admit_fnv64.
import fnv from "fnv-plus";

/** Namespaces keep capabilities from contending on the same advisory lock by accident. */
export type LockNamespace = "reservation" | "lock" | "lease" | "semaphore" | "webhook" | "webhook-signed";

/** FNV-1a 64 of `text` (UTF-8), as a decimal string of the signed 64-bit value (safe to pass as a SQL bigint). */
export function fnv64(text: string): string {
  const unsigned = BigInt("0x" + fnv.fast1a64utf(text));
  return BigInt.asIntN(64, unsigned).toString();
}

/** The lock key of `name` within a namespace: fnv64("reservation/" + resource), and so on. */
export function lockKey(namespace: LockNamespace, name: string): string {
  return fnv64(`${namespace}/${name}`);
}
