// The wire format of Neon's HTTP SQL endpoint (`POST /sql`), as `neon()` from
// @neondatabase/serverless speaks it; the bridge serves it (sql-endpoint.ts) beside the WebSocket
// path, as Neon's proxy serves both, and runs it on bounded pools (sql-pools.ts).
//
// From the driver's own source (node_modules/@neondatabase/serverless/index.mjs, `neon()` →
// `execute`):
// - request: POST, headers `Neon-Connection-String`, `Neon-Raw-Text-Output: true`,
//   `Neon-Array-Mode: true`; body `{"query","params"}` (params already text or null), or a batch
//   `{"queries":[…]}` run as one transaction, with optional `Neon-Batch-Isolation-Level`,
//   `Neon-Batch-Read-Only` and `Neon-Batch-Deferrable` headers;
// - answer 200: `{command,rowCount,rows:[[text|null,…]],fields:[{name,dataTypeID,…}],rowAsArray}`,
//   a batch `{results:[…]}`;
// - answer 400 with a JSON body of Postgres error fields (`message`, `code`, `detail`, …): the
//   driver throws an error carrying them, SQLSTATE included. Any other status becomes an error
//   without a SQLSTATE, so 400 is how the endpoint says "Postgres refused it, or it never ran".

export interface SqlQuery {
  query: string;
  params: unknown[];
}

/** One statement (its own transaction), or a fixed list run as one transaction. */
export type SqlRequest = { kind: "single"; query: SqlQuery } | { kind: "batch"; queries: SqlQuery[]; begin: string };

/** What the endpoint answers: a status and a JSON body. */
export interface SqlAnswer {
  status: number;
  body: unknown;
}

/** A 400 whose body the driver turns into an error with this SQLSTATE: the statement did not run. */
export function notRun(code: string, message: string): SqlAnswer {
  return { status: 400, body: { message, code, severity: "ERROR" } };
}

/**
 * The most bytes Neon's HTTP endpoint answers (10 MiB, Neon's documented limit): a
 * larger result is refused with an error that has no SQLSTATE ("response too large", which the
 * driver throws as a NeonDbError), after the statement ran. Served here as Neon does, so that a
 * read too large for it fails in tests as it would deployed.
 */
export const NEON_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** `answer` as JSON text, or Neon's refusal when that is over NEON_MAX_RESPONSE_BYTES. */
export function answerText(answer: SqlAnswer): { status: number; text: string } {
  const text = JSON.stringify(answer.body);
  if (Buffer.byteLength(text) <= NEON_MAX_RESPONSE_BYTES) return { status: answer.status, text };
  return { status: 400, text: JSON.stringify({ message: `response is too large (max is ${NEON_MAX_RESPONSE_BYTES} bytes)` }) };
}

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

function isQuery(q: unknown): q is SqlQuery {
  const o = q as SqlQuery | null;
  return typeof o === "object" && o !== null && typeof o.query === "string" && (o.params === undefined || Array.isArray(o.params));
}

/** Parses the body and headers of a request; a string is what is wrong with it. */
export function parseSqlRequest(body: string, header: (name: string) => string | undefined): SqlRequest | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return "the body is not JSON";
  }
  const o = json as { query?: unknown; queries?: unknown };
  if (Array.isArray(o?.queries)) {
    if (!o.queries.every(isQuery)) return 'every item of "queries" needs a "query" string and a "params" array';
    const isolation = header("neon-batch-isolation-level");
    if (isolation !== undefined && !ISOLATION[isolation]) return `unknown Neon-Batch-Isolation-Level "${isolation}"`;
    let begin = "BEGIN";
    if (isolation) begin += ` ISOLATION LEVEL ${ISOLATION[isolation]}`;
    if (header("neon-batch-read-only") === "true") begin += " READ ONLY";
    if (header("neon-batch-deferrable") === "true") begin += " DEFERRABLE";
    return { kind: "batch", queries: o.queries.map((q) => ({ query: q.query, params: q.params ?? [] })), begin };
  }
  if (isQuery(o)) return { kind: "single", query: { query: o.query, params: o.params ?? [] } };
  return 'expected {"query": "…", "params": […]} or {"queries": […]}';
}

/** The SQL texts of a request, for the bridge's statement faults. */
export function sqlTexts(r: SqlRequest): string[] {
  return r.kind === "single" ? [r.query.query] : r.queries.map((q) => q.query);
}
