// What the bridge offers its callers: its options, its handle, its counters and its fault plans.
export interface BridgeStats {
  connections: number;
  open: number;
  clientMessages: number;
  serverMessages: number;
  clientBytes: number;
  serverBytes: number;
  refused: number;
  /** Fault mode: upgrades refused by `refuse`. */
  faultRefused: number;
  /** Fault mode: connections cut on purpose. */
  dropped: number;
  /** Fault mode: connections whose traffic was held (`stall-before`/`stall-after`). */
  stalled: number;
  /** WebSocket sessions waiting for their turn now, and those refused because it did not come within `queueMs`. */
  sessionsWaiting: number;
  sessionQueueTimeouts: number;
  /** HTTP SQL requests received, and those not answered yet. */
  httpRequests: number;
  httpOpen: number;
  /** HTTP SQL: pooled connections running a statement now, requests waiting for one, and those refused after `queueMs`. */
  poolActive: number;
  poolWaiting: number;
  poolQueueTimeouts: number;
}

/**
 * Where to cut or stall around the first client statement (simple `Query` or extended `Parse`)
 * whose SQL matches:
 * - `drop-before`: the statement never reaches Postgres; the connection is cut.
 * - `stall-before`: the statement and everything after it is held back (never delivered); the
 *   connection stays open until the client gives up — a network that swallowed the write.
 * - `drop-after`: the whole statement (through its `Sync`) is delivered, then the connection is
 *   cut before any answer reaches the client. Postgres runs it, and a single statement commits.
 * - `stall-after`: the statement is delivered and Postgres's answers are swallowed; the
 *   connection stays open, so Postgres completes (and commits) while the client hears nothing.
 */
export type StatementFault = "drop-before" | "stall-before" | "drop-after" | "stall-after";

export interface Faults {
  /** Refuse new connections (the upgrade is answered 503): a proxy that is down. */
  refuse?: boolean;
  /** Hold every relayed chunk, both directions, this long (order kept). */
  delayMs?: number;
  /**
   * Cut the connection once this much has been relayed on it: bytes are exact (a message may be
   * cut in half); messages are Postgres protocol messages (the startup packet counts as one).
   */
  dropAfter?: { clientBytes?: number; serverBytes?: number; clientMessages?: number; serverMessages?: number };
  /** Cut each connection after a random number of bytes in [0, maxBytes) (both directions counted). */
  dropAtRandom?: { maxBytes: number; seed?: number };
  /** Cut or stall around the first statement whose SQL contains `match` (string) or matches it (RegExp). */
  statement?: { match: string | RegExp; action: StatementFault };
  /** Apply to this many new connections only, then relay normally (default: every new connection). */
  connections?: number;
}

export interface Bridge {
  port: number;
  host: string;
  wsProxy: string;
  /** The limits it runs with (BridgeOptions, defaults filled in). */
  poolSize: number;
  maxSessions: number;
  queueMs: number;
  rttMs: number;
  stats(): BridgeStats;
  resetStats(): void;
  /** Faults for connections opened from now on; `undefined` turns fault mode off (open ones keep theirs). */
  setFaults(faults?: Faults): void;
  /** Cuts every open connection now (both sides), as a network partition would. */
  dropAll(): void;
  close(): Promise<void>;
}

export interface BridgeOptions {
  port?: number;
  host?: string;
  log?: (line: string) => void;
  /** Postgres sessions the WebSocket path keeps open at once, all targets together (default 100). */
  maxSessions?: number;
  /** Pooled Postgres connections per connection string for the HTTP SQL endpoint (default 10). */
  poolSize?: number;
  /** How long a request may wait for a session or a pooled connection before it is refused, not run (default 3000 ms). */
  queueMs?: number;
  /**
   * Distance to the database: every HTTP SQL request and every WebSocket round trip takes this much
   * longer (half of it each way; order kept). Default 0: loopback.
   */
  rttMs?: number;
}

export const BRIDGE_DEFAULTS = { maxSessions: 100, poolSize: 10, queueMs: 3_000 } as const;

/** Every counter at zero. */
export const zeroStats = (): BridgeStats => ({
  connections: 0,
  open: 0,
  clientMessages: 0,
  serverMessages: 0,
  clientBytes: 0,
  serverBytes: 0,
  refused: 0,
  faultRefused: 0,
  dropped: 0,
  stalled: 0,
  sessionsWaiting: 0,
  sessionQueueTimeouts: 0,
  httpRequests: 0,
  httpOpen: 0,
  poolActive: 0,
  poolWaiting: 0,
  poolQueueTimeouts: 0,
});
