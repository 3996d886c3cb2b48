// A keyed RPC call (functions/http/rpc/): the Idempotency-Key store without HTTP. The call's answer is
// stored in the same transaction as its effect, so a call retried with the same key — after a 504,
// or a binding that threw — answers the first call's answer instead of running again. The binding is
// one caller (every Worker bound to Admit holds the same authority): its keys are its own, apart from
// the root token's and every key's.
import { sha256 } from "hono/utils/crypto";
import { decodeBase64, encodeBase64 } from "hono/utils/encode";
import type { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { validationProblem } from "../core/errors";
import { canonicalJson } from "../core/validation";
import { callerScope, checkKey, claimKey, type Ending, releaseKey } from "./claim";
import { storeIdempotentResponse } from "./sql";

/** Where a keyed RPC call's key is given (the 422s name it). */
export const RPC_KEY_FIELD = { in: "options", path: "idempotencyKey" } as const;

/**
 * What a key remembers of the input: its canonical JSON (RFC 8785, the `canonicalize` package), so
 * the same input built with its keys in another order is the same call. Input that has no JSON form
 * (NaN, Infinity, a lone surrogate, a cycle) is refused as every method would refuse it.
 */
function fingerprint(input: unknown): string {
  const c = canonicalJson(input);
  if ("json" in c) return c.json;
  throw validationProblem(`The call's input has no JSON form (${c.error}), so no key can stand for it: send plain JSON values.`, [
    { in: "body", path: "", message: c.error },
  ]);
}

/**
 * Runs `run` at most once for `key`: `call` names it (`Admit.reserve`) and `input` is what it was
 * given (compared as canonical JSON) — the same key with another call or other input is a 422, and while the first call runs a
 * second gets 409 with Retry-After. `ending` says what an answer leaves, as the HTTP middleware
 * decides it: `store` it with its effect; `release` — a refusal the database decided (a rate-limit
 * denial): not stored, its effect (the attempt counted) stays and the key is let go; `rollback` —
 * neither stays. A thrown problem stores nothing.
 */
export async function once<T>(
  db: RequestDb,
  env: Bindings,
  k: { key: string; call: string; input: unknown },
  run: () => Promise<T>,
  ending: (answer: T) => Ending,
): Promise<T> {
  checkKey(k.key, RPC_KEY_FIELD);
  const bodyHash = await sha256(fingerprint(k.input));
  const mine = { caller: callerScope({ kind: "binding" }), key: k.key };
  const replayed = await claimKey(db, env, { ...mine, method: "RPC", path: k.call, bodyHash, field: RPC_KEY_FIELD });
  if (replayed) return JSON.parse(new TextDecoder().decode(decodeBase64(replayed.body))) as T;
  try {
    const answer = await run();
    const end = ending(answer);
    if (end !== "store") {
      await (end === "release" ? releaseKey(db, mine) : db.rollback());
      return answer;
    }
    if (db.transactionFailed) throw new Error(`${k.call} answered after a failed statement`);
    const body = new TextEncoder().encode(JSON.stringify(answer));
    await storeIdempotentResponse(db, mine, 200, { "content-type": "application/json" }, encodeBase64(body.buffer as ArrayBuffer));
    await db.commit();
    return answer;
  } catch (err) {
    await db.rollback();
    throw err;
  }
}
