// How a database failure is answered (functions/core/db.ts classifies and calls these): what is known
// about the statement decides between 503 (nothing was applied), 504 (a write may have been), 409,
// 422 and the rest, with a Retry-After where waiting helps.
import { type ProblemError, problem } from "./errors";

export function unavailable(detail: string, retryAfterS = 2): ProblemError {
  return problem("database-unavailable", `${detail} Nothing was applied; retry after ${retryAfterS} s.`, {}, { "Retry-After": String(retryAfterS) });
}

/** No database to ask: nothing was applied, and waiting does not help until it is configured. */
export function notConfigured(): ProblemError {
  return problem(
    "database-not-configured",
    "DATABASE_URL is not set: set it as a wrangler secret (production) or run `npm start` (local).",
    {},
    { "Retry-After": "30" },
  );
}

export function outcomeUnknown(detail: string): ProblemError {
  return problem(
    "outcome-unknown",
    `${detail} The write was sent but no answer came, so it may or may not have been applied. A retry with the same Idempotency-Key returns the real outcome (the stored response if it committed, a fresh run if it did not); without a key, read the resource back before retrying.`,
  );
}

/**
 * Neon's HTTP endpoint answers at most 10 MiB and refuses a larger result after the statement ran,
 * with a 400 that carries no SQLSTATE ("response is too large (max is 10485760 bytes)"; dev/bridge/sql-wire.ts
 * answers the same). It is no lost connection: the same request gets the same refusal every time.
 */
export function isResponseTooLarge(err: unknown): boolean {
  return sqlState(err) === undefined && /response is too large/i.test((err as { message?: unknown } | null)?.message?.toString() ?? "");
}

/** 422 for an answer over Neon's limit: permanent, so never the retryable 503; it says how to ask for less. */
export function responseTooLarge(write: boolean): ProblemError {
  return problem(
    "response-too-large",
    `The answer is larger than the database's HTTP endpoint returns (10 MiB), so retrying the same request gets the same refusal. Ask for less: a shorter range, a smaller \`limit\` or \`holders\`, or the next page.${write ? " The statement ran before its answer was refused: read the resource back before repeating the write." : ""}`,
    { errors: [{ in: "input", path: "(answer)", message: "the answer would be over 10 MiB: ask for less" }] },
  );
}

/** A Postgres error carries a 5-character SQLSTATE in `code`; anything else from the driver is the connection. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * SQLSTATE → HTTP for failures no capability handles itself. The statement was rolled back in every
 * case here, so "not applied" is certain.
 */
export function mapSqlError(state: string, err: unknown): ProblemError {
  const msg = (err as { message?: string }).message ?? "";
  if (state === "40P01" || state === "40001")
    return problem("concurrent-conflict", "Another request changed the same data at the same moment; nothing was applied. Retry.", {}, { "Retry-After": "1" });
  if (state === "23P01" || state === "23505")
    return problem("conflict", "The write conflicts with existing data (a concurrent request won); nothing was applied.");
  // A CHECK constraint broken by a write: the stored state moved under the request (a concurrent
  // change), since the routes validate their input before it reaches the database.
  if (state === "23514") {
    const constraint = (err as { constraint?: string }).constraint;
    return problem(
      "conflict",
      `The write no longer fits the stored data${constraint ? ` (${constraint})` : ""}, which a concurrent request changed; nothing was applied.`,
    );
  }
  // A foreign key broken by a write: the row it refers to was deleted by a concurrent request
  // (every function checks the parent first, so only a race gets here; an override PUT locks its
  // policy and answers the policy's 404 itself). Which row went is not known here: 409 conflict,
  // like the other constraints, not a guessed 404.
  if (state === "23503") {
    const constraint = (err as { constraint?: string }).constraint;
    return problem(
      "conflict",
      `The write refers to data a concurrent request deleted${constraint ? ` (${constraint})` : ""}; nothing was applied. Read the current state, then decide.`,
    );
  }
  if (state === "55P03")
    return problem("lock-timeout", "Another request holds the lock for too long; nothing was applied. Retry shortly.", {}, { "Retry-After": "1" });
  if (state === "57014") return unavailable("The statement timed out in the database.", 1);
  // 22003 (numeric value out of range) is not the caller's: every input is validated against what
  // the database stores, so an overflow is of a value the database computed (a counter, a sum) — a bug,
  // answered as one below, never a 422 that blames the request.
  if (state.startsWith("22") && state !== "22003") return problem("validation", `The database rejected a value: ${msg}`);
  // Program limit exceeded (a value too deep, too large for an index row, …): the input, not the service.
  if (state.startsWith("54")) return problem("validation", `The value is beyond what the database can store: ${msg}`);
  if (state === "42P01" || state === "42883" || state === "42703")
    return unavailable("The database schema is missing or out of date: run `npm run migrate` against DATABASE_URL.", 30);
  if (state.startsWith("28")) return unavailable("The database rejected the credentials in DATABASE_URL.", 30);
  if (state.startsWith("08") || state.startsWith("53") || state.startsWith("57P") || state === "3D000")
    return unavailable(`The database cannot serve requests now (${state}).`);
  // The database's own trouble, not the request's: an internal error (XX000: e.g. a compute that
  // could not read a page during an incident) or an I/O error (58…).
  if (state.startsWith("XX") || state.startsWith("58")) return unavailable(`The database failed to run the statement (${state}: ${msg}).`);
  if (state === "25006") return unavailable("DATABASE_URL points at a read-only database (a replica?): Admit needs one it can write to.", 30);
  if (state === "42501")
    return unavailable(`The database role in DATABASE_URL lacks a privilege Admit needs (${msg}): grant it, or run \`npm run migrate\` as that role.`, 30);
  // Postgres itself cannot say whether the statement completed.
  if (state === "40003")
    return problem(
      "outcome-unknown",
      "The database could not tell whether the statement completed; it may or may not have been applied.",
      {},
      { "Retry-After": "1" },
    );
  const bug = new Error(`unexpected SQLSTATE ${state}: ${msg}`);
  throw bug;
}

/**
 * No answer: after `waitedMs` (null: the connection failed). 504 outcome-unknown when a write may
 * have been applied (it was sent), else 503: nothing was applied. The `within N ms` wording is what
 * a rate-limit check reads as "timeout" (ratelimits/budget.ts).
 */
export function lostAnswer(waitedMs: number | null, writeSent: boolean): ProblemError {
  const what = waitedMs !== null ? `No answer from the database within ${waitedMs} ms.` : "The database connection failed.";
  return writeSent ? outcomeUnknown(what) : unavailable(what);
}
