// The request's database handle, over @neondatabase/serverless, with a time budget and honest outcomes.
//
// - Two transports, chosen here and nowhere else. A statement outside an explicit transaction (one
//   statement = one transaction: every one-call decision) goes over HTTP with `neon()`: one `fetch`,
//   no session to set up, pooled on the proxy's side. An explicit transaction (begin/commit:
//   Idempotency-Key, in-request locks) needs an interactive session: a WebSocket `Client`, created
//   lazily at BEGIN and closed in `waitUntil` after the response. `DB_TRANSPORT=websocket` sends
//   every statement through the `Client` instead.
// - Every database call races the request's remaining budget; nothing waits forever.
// - Failures are classified by what is known: a Postgres error (SQLSTATE) means the statement was
//   rolled back; a network failure or timeout *before* a write was sent means "not applied" (503);
//   after a write was sent it means "outcome unknown" (504) — the write may still commit. Over HTTP a
//   statement counts as sent once its `fetch` started, unless the endpoint answered with a SQLSTATE
//   (Postgres refused it, or the proxy could not run it: either way nothing was applied).
import { Client, neon, neonConfig } from "@neondatabase/serverless";
import { isResponseTooLarge, lostAnswer, mapSqlError, notConfigured, responseTooLarge, sqlState, unavailable } from "./db-errors";
import type { Bindings } from "./env";
import { ProblemError } from "./errors";

export { isResponseTooLarge, lostAnswer, mapSqlError, outcomeUnknown, responseTooLarge, sqlState, unavailable } from "./db-errors";

export const DEFAULT_BUDGET_MS = 5_000;
export const DEFAULT_LOCK_TIMEOUT_MS = 2_000;

export function intSetting(value: string | undefined, fallback: number, min: number, max: number): number {
  const n = value === undefined || value === "" ? fallback : Number(value);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

export function budgetMs(b: Bindings): number {
  return intSetting(b.DB_BUDGET_MS, DEFAULT_BUDGET_MS, 100, 60_000);
}

export function lockTimeoutMs(b: Bindings): number {
  return intSetting(b.LOCK_TIMEOUT_MS, DEFAULT_LOCK_TIMEOUT_MS, 1, 60_000);
}

type WebSocketClass = NonNullable<typeof neonConfig.webSocketConstructor>;
/** Each WebSocket class → its coalescing wrapper (a wrapper maps to itself, so it is never wrapped twice). */
const coalescing = new WeakMap<WebSocketClass, WebSocketClass>();
const afterTurn: (fn: () => void) => void = typeof setImmediate === "function" ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/**
 * The runtime's WebSocket, with the messages written in one turn of the event loop sent as ONE
 * frame. The driver writes each Postgres message separately (startup, password; Parse, Bind,
 * Describe, Execute, Sync) and its own `coalesceWrites` gathers them behind `setTimeout(0)`, which
 * Node clamps to a millisecond: in Node every statement sat that long in the client before leaving
 * (docs/performance.md has the measurement). Here the frame leaves on `setImmediate`, right after
 * the current turn (a pipelined connect's startup, password and first query still go together).
 * Workers has no setImmediate; there it is `setTimeout(0)`, as the driver did. `close()` flushes
 * first, so the Terminate written just before it is not lost.
 */
export function coalescedWebSocket(Base: WebSocketClass): WebSocketClass {
  let wrapped = coalescing.get(Base);
  if (wrapped) return wrapped;
  wrapped = function CoalescingWebSocket(url: string | URL, protocols?: string | string[]) {
    const ws = new Base(url, protocols);
    const send = ws.send.bind(ws);
    const close = ws.close.bind(ws);
    let queued: Uint8Array[] = [];
    let bytes = 0;
    const flush = () => {
      if (!queued.length) return;
      let frame: Uint8Array;
      if (queued.length === 1) frame = queued[0];
      else {
        frame = new Uint8Array(bytes);
        let at = 0;
        for (const part of queued) {
          frame.set(part, at);
          at += part.byteLength;
        }
      }
      queued = [];
      bytes = 0;
      try {
        send(frame);
      } catch {
        // The socket is already closing: its close/error event tells the driver.
      }
    };
    ws.send = (data: Parameters<WebSocket["send"]>[0]) => {
      const part =
        typeof data === "string"
          ? new TextEncoder().encode(data)
          : ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : data instanceof ArrayBuffer
              ? new Uint8Array(data)
              : undefined;
      if (!part) return send(data);
      if (!queued.length) afterTurn(flush);
      queued.push(part);
      bytes += part.byteLength;
    };
    ws.close = (code?: number, reason?: string) => {
      flush();
      close(code, reason);
    };
    return ws;
  } as unknown as WebSocketClass;
  coalescing.set(Base, wrapped).set(wrapped, wrapped);
  return wrapped;
}

/** A configured, unconnected client. Locally `NEON_WS_PROXY` points the driver at the bridge. */
export function createClient(b: Pick<Bindings, "DATABASE_URL" | "NEON_WS_PROXY">): Client {
  if (!b.DATABASE_URL) throw notConfigured();
  const client = new Client({ connectionString: b.DATABASE_URL });
  if (b.NEON_WS_PROXY) {
    client.neonConfig.wsProxy = b.NEON_WS_PROXY;
    client.neonConfig.useSecureWebSocket = false;
    client.neonConfig.pipelineTLS = false;
  }
  // Startup, cleartext password and first query go out together: one round trip saved per request.
  client.neonConfig.pipelineConnect = "password";
  const Base = neonConfig.webSocketConstructor ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
  if (Base) {
    client.neonConfig.webSocketConstructor = coalescedWebSocket(Base);
    client.neonConfig.coalesceWrites = false;
  }
  // An idle connection that dies emits 'error'; without a listener that would be an uncaught exception.
  client.on("error", () => {});
  return client;
}

/**
 * The HTTP SQL endpoint for these bindings: locally the bridge's `/sql`, beside its WebSocket path;
 * undefined on Neon, where the driver derives it from the host (`https://api.<region host>/sql`).
 */
export function httpEndpoint(b: Pick<Bindings, "NEON_WS_PROXY">): string | undefined {
  return b.NEON_WS_PROXY ? `http://${b.NEON_WS_PROXY.replace(/\/v\d+$/, "")}/sql` : undefined;
}

// `neonConfig.fetchEndpoint` is one setting for the whole isolate, but the endpoint belongs to the
// bindings (a test process serves apps behind different bridges). So each query names its endpoint
// in its fetch options, under this key, and the fetch function installed once below honours it.
export const ENDPOINT = Symbol("admit.sqlEndpoint");
export type EndpointInit = RequestInit & { [ENDPOINT]?: string };
let routedFetch = false;
export function installRoutedFetch(): void {
  if (routedFetch) return;
  routedFetch = true;
  const inner = neonConfig.fetchFunction as typeof fetch | undefined;
  neonConfig.fetchFunction = (url: string, init: EndpointInit) => (inner ?? fetch)(init?.[ENDPOINT] ?? url, init);
}

type HttpSql = ReturnType<typeof neon>;
/** One `neon()` function per connection string, kept for the isolate's life (it holds no connection). */
const httpSql = new Map<string, HttpSql>();
function httpSqlFor(url: string): HttpSql {
  let sql = httpSql.get(url);
  if (!sql) httpSql.set(url, (sql = neon(url, { fullResults: true })));
  return sql;
}

class Timeout extends Error {}

/**
 * Waits for `shared` (a promise another request may own: a key look-up it started, a batch it
 * carries) with a timer of this request's own. In workerd a request whose only wait is another
 * request's promise has nothing pending of its own and is cancelled as hung ("would never generate
 * a response": a 500, seen when 64 requests at once joined one key look-up); the timer is something
 * of its own to wait for, and the bound: no answer within `ms` → 503, nothing was applied by this request.
 */
export async function ownWait<T>(shared: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      shared,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(lostAnswer(ms, false)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface QueryOptions {
  /** The statement changes data: a lost answer after sending it is "outcome unknown" (504), not 503. */
  write?: boolean;
  /** Give up sooner than the request's budget (e.g. /health must answer within 5 s). */
  withinMs?: number;
  /** Internal: this statement is the COMMIT of an explicit transaction. */
  commit?: boolean;
}

/** The request's database handle: at most one connection, opened on first use, bounded by the budget. */
export class RequestDb {
  private client?: Client;
  private connecting?: Promise<Client>;
  private readonly deadline: number;
  private broken = false;
  private inTx = false;
  private txFailed = false;
  private readonly kept: Promise<unknown>[] = []; // keepAlive's work, settled either way

  constructor(private readonly bindings: Bindings) {
    this.deadline = Date.now() + budgetMs(bindings);
  }

  get lockTimeoutMs(): number {
    return Math.max(1, Math.min(lockTimeoutMs(this.bindings), this.remainingMs() - 50));
  }

  remainingMs(): number {
    return this.deadline - Date.now();
  }

  private async withDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
    const left = deadline - Date.now();
    if (left <= 0) throw new Timeout();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Timeout()), left);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private connect(): Promise<Client> {
    this.connecting ??= (async () => {
      const client = createClient(this.bindings);
      this.client = client;
      await client.connect();
      return client;
    })();
    return this.connecting;
  }

  /** The transport of the next statement: the session while a transaction is open, else HTTP (see the top of this file). */
  get transport(): "http" | "websocket" {
    return this.inTx || this.bindings.DB_TRANSPORT === "websocket" ? "websocket" : "http";
  }

  /**
   * Where this handle's statements may share one statement with other requests' (functions/core/coalesce/):
   * the database, while a statement is its own transaction over HTTP (outside begin/commit, not
   * DB_TRANSPORT=websocket) and COALESCE is not "off"; otherwise undefined (never coalesced).
   */
  get coalesceKey(): string | undefined {
    if (this.transport !== "http" || this.bindings.COALESCE === "off") return undefined;
    return this.bindings.DATABASE_URL;
  }

  /** Runs one statement (its own transaction, unless inside begin/commit) and returns its rows. */
  async query<R = Record<string, unknown>>(text: string, params: unknown[] = [], opts: QueryOptions = {}): Promise<R[]> {
    return this.run<R>(text, params, opts, this.transport);
  }

  private async run<R>(text: string, params: unknown[], opts: QueryOptions, transport: "http" | "websocket"): Promise<R[]> {
    if (transport === "websocket" && this.broken) throw unavailable("The database connection of this request was lost.");
    const started = Date.now();
    const deadline = Math.min(this.deadline, opts.withinMs === undefined ? Infinity : started + opts.withinMs);
    const sending = { sent: false };
    try {
      const rows = transport === "http" ? await this.viaHttp(text, params, deadline, sending) : await this.viaSession(text, params, deadline, sending);
      return rows as R[];
    } catch (err) {
      if (this.inTx) this.txFailed = true;
      const state = sqlState(err);
      if (state) throw mapSqlError(state, err);
      if (err instanceof ProblemError) throw err;
      if (isResponseTooLarge(err)) throw responseTooLarge(opts.write === true);
      if (transport === "websocket") {
        this.broken = true;
        void this.close();
      }
      // Inside an explicit transaction nothing commits until COMMIT, and a dropped connection rolls back.
      throw lostAnswer(err instanceof Timeout ? Date.now() - started : null, sending.sent && opts.write === true && (!this.inTx || opts.commit === true));
    }
  }

  private async viaSession(text: string, params: unknown[], deadline: number, sending: { sent: boolean }): Promise<unknown[]> {
    const client = await this.withDeadline(this.connect(), deadline);
    sending.sent = true;
    // Use the unnamed statement only (no named prepared statements): works behind PgBouncer in transaction mode.
    const result = await this.withDeadline(client.query(text, params), deadline);
    return result.rows;
  }

  private async viaHttp(text: string, params: unknown[], deadline: number, sending: { sent: boolean }): Promise<unknown[]> {
    const url = this.bindings.DATABASE_URL;
    if (!url) throw notConfigured();
    const endpoint = httpEndpoint(this.bindings);
    if (endpoint) installRoutedFetch();
    const abort = new AbortController();
    const fetchOptions: EndpointInit = { signal: abort.signal };
    if (endpoint) fetchOptions[ENDPOINT] = endpoint;
    try {
      if (deadline <= Date.now()) throw new Timeout();
      sending.sent = true;
      const result = await this.withDeadline(httpSqlFor(url).query(text, params, { fullResults: true, fetchOptions }), deadline);
      return result.rows;
    } catch (err) {
      abort.abort(); // a statement the Worker gave up on must not keep its fetch open
      // A fetch that could not even connect sent nothing (undici's ECONNREFUSED; workerd does not say).
      if ((err as { sourceError?: { cause?: { code?: string } } }).sourceError?.cause?.code === "ECONNREFUSED") sending.sent = false;
      throw err;
    }
  }

  /** True between begin() and commit()/rollback(). */
  get inTransaction(): boolean {
    return this.inTx;
  }

  /** A statement failed inside the open transaction: Postgres will only accept ROLLBACK now. */
  get transactionFailed(): boolean {
    return this.inTx && this.txFailed;
  }

  /** Opens an explicit transaction; every query until commit()/rollback() runs inside it. */
  async begin(): Promise<void> {
    if (this.inTx) throw new Error("begin(): a transaction is already open on this request");
    await this.run("BEGIN", [], {}, "websocket");
    this.inTx = true;
    this.txFailed = false;
  }

  /**
   * Commits. A connection lost after COMMIT was sent is "outcome unknown" (504). After a statement
   * failed inside the transaction, Postgres would answer COMMIT with a silent ROLLBACK: that is
   * rolled back and thrown (a caller that caught the failure and went on), never reported as saved.
   */
  async commit(): Promise<void> {
    if (this.transactionFailed) {
      await this.rollback();
      throw new Error("commit(): a statement failed inside this transaction (and was caught), so Postgres rolled it back; nothing was saved");
    }
    try {
      await this.query("COMMIT", [], { write: true, commit: true });
    } finally {
      this.inTx = false;
    }
  }

  /** Rolls back if a transaction is open; never throws (a lost connection rolls back by itself). */
  async rollback(): Promise<void> {
    if (!this.inTx) return;
    this.inTx = false;
    if (this.broken) return;
    try {
      await this.run("ROLLBACK", [], {}, "websocket");
    } catch {
      /* the server rolls back when the connection goes */
    }
  }

  /**
   * Runs `fn` in one transaction: BEGIN … COMMIT, or ROLLBACK if it throws. If a transaction is
   * already open (an outer caller such as the idempotency layer owns it), `fn` joins it and the
   * outer owner commits.
   */
  async transaction<T>(fn: (db: RequestDb) => Promise<T>): Promise<T> {
    if (this.inTx) return fn(this);
    await this.begin();
    let result: T;
    try {
      result = await fn(this);
    } catch (err) {
      await this.rollback();
      throw err;
    }
    await this.commit();
    return result;
  }

  /**
   * Keeps `work` done for others going after this request answered (a batch it carries runs to its
   * latest decision's deadline: coalesce/send.ts): close(), run in `waitUntil`, waits for it, so workerd does.
   */
  keepAlive(work: Promise<unknown>): void {
    this.kept.push(work.catch(() => {}));
  }

  /** Closes the connection, then waits for the work kept open; called from `waitUntil` once the response is on its way. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    try {
      // Never let a stalled close keep the invocation alive.
      if (client) await Promise.race([client.end(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    } catch {
      /* the connection is gone either way */
    }
    await Promise.all(this.kept);
  }
}

/** What a capability's SQL wrappers (functions/<capability>/sql.ts) run on: the request's handle, or one a test or the cron opens. */
export type Queryable = Pick<RequestDb, "query" | "lockTimeoutMs"> & Partial<Pick<RequestDb, "coalesceKey" | "remainingMs" | "keepAlive">>;
