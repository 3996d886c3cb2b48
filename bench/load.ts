// Load generation: a closed loop of `concurrency` workers, bounded by a request count AND a time
// limit, timing each decision; and the Neon-driver connection modes of the library layer.
import http from "node:http";
import "../dev/node-ws";
import type { Client } from "@neondatabase/serverless";
import { createClient } from "../functions/core/db";

export interface LoadOptions {
  concurrency: number;
  /** Stop after this many decisions… */
  requests: number;
  /** …or once this much time has passed, whichever comes first (in-flight ones finish). */
  timeLimitMs: number;
  /** Called every ~2 s with the count so far. */
  onProgress?: (done: number) => void;
}

export interface LoadResult {
  /** Per-decision latency in ms, in completion order. */
  latencies: number[];
  /** What each decision answered (e.g. "201", "409", "allowed", "error:08006"). */
  outcomes: string[];
  elapsedMs: number;
}

/**
 * Runs `op(i, worker)` for i = 0, 1, … on `concurrency` workers until `requests` are done or the
 * time limit passes. `op` returns a label for the answer; a throw is recorded as "error:…".
 */
export async function runLoad(opts: LoadOptions, op: (i: number, worker: number) => Promise<string>): Promise<LoadResult> {
  const latencies: number[] = [];
  const outcomes: string[] = [];
  const started = performance.now();
  const stopAt = started + opts.timeLimitMs;
  let next = 0;
  const timer = opts.onProgress ? setInterval(() => opts.onProgress!(latencies.length), 2_000) : undefined;
  timer?.unref();
  const worker = async (w: number) => {
    while (next < opts.requests && performance.now() < stopAt) {
      const i = next++;
      const t0 = performance.now();
      let outcome: string;
      try {
        outcome = await op(i, w);
      } catch (err) {
        outcome = errorLabel(err);
      }
      latencies.push(performance.now() - t0);
      outcomes.push(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, (_, w) => worker(w)));
  } finally {
    if (timer) clearInterval(timer);
  }
  return { latencies, outcomes, elapsedMs: performance.now() - started };
}

export function errorLabel(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; status?: unknown };
  if (typeof e?.code === "string") return `error:${e.code}`;
  if (typeof e?.status === "number") return `error:${e.status}`;
  return `error:${String(e?.message ?? err).slice(0, 60)}`;
}

export interface Db {
  /** Neon-driver settings for the local bridge, as the Worker uses them. */
  url: string;
  wsProxy: string;
}

/** A connected Neon-driver client, configured exactly as the Worker configures its own. */
export async function neonClient(db: Db): Promise<Client> {
  const client = createClient({ DATABASE_URL: db.url, NEON_WS_PROXY: db.wsProxy });
  await client.connect();
  return client;
}

export type Query = (text: string, params?: unknown[]) => Promise<{ rows: any[] }>;

/**
 * The library layer's two connection modes, behind one interface:
 * - pooled: `size` connections opened up front and reused, one per worker;
 * - per-request: a new Client for every decision (connect pipelined, as on Workers), closed after
 *   the answer without the caller waiting, as the Worker closes it in waitUntil; or for every
 *   statement, where the edge sends a decision's statements as separate requests.
 */
export interface Connections {
  /** Runs `fn` with the worker's connection (pooled) or a fresh one (per-request). */
  use<T>(worker: number, fn: (q: Query) => Promise<T>): Promise<T>;
  /** Connections closed so far (per-request mode), for subtracting Terminate messages. */
  closed(): number;
  /** Waits for pending closes (per-request) or closes the pool. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function pooledConnections(db: Db, size: number): Promise<Connections> {
  const clients = await Promise.all(Array.from({ length: size }, () => neonClient(db)));
  return {
    use: (w, fn) => fn((text, params) => clients[w % clients.length].query(text, params)),
    closed: () => 0,
    drain: async () => {},
    close: async () => {
      await Promise.allSettled(clients.map((c) => c.end()));
    },
  };
}

/**
 * `perStatement`: a new connection for each statement instead of each decision, for decisions the
 * edge makes in several HTTP requests (a permit's acquire, then its release).
 */
export function perRequestConnections(db: Db, perStatement = false): Connections {
  const pending = new Set<Promise<unknown>>();
  let closed = 0;
  const end = (client: Client) => {
    const p = client
      .end()
      .catch(() => {})
      .finally(() => {
        closed++;
        pending.delete(p);
      });
    pending.add(p);
  };
  /** Runs `fn` on a new connection, closed after the answer without waiting. */
  const fresh = async <T>(fn: (q: Query) => Promise<T>): Promise<T> => {
    const client = createClient({ DATABASE_URL: db.url, NEON_WS_PROXY: db.wsProxy });
    try {
      await client.connect();
      return await fn((text, params) => client.query(text, params));
    } finally {
      end(client);
    }
  };
  return {
    use: (_w, fn) => (perStatement ? fn((text, params) => fresh((q) => q(text, params))) : fresh(fn)),
    closed: () => closed,
    drain: async () => {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    close: async () => {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}

// Keep-alive sockets, as a load generator keeps them: undici's fetch cost the load generator ~2 ms
// of CPU per request here, taken from the same two cores as the Worker and Postgres it measures.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One HTTP request on a kept-alive loopback socket; resolves with the status, headers and body text. */
export function httpRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
  via: http.Agent = agent,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) h["Content-Length"] = Buffer.byteLength(body);
    const req = http.request(url, { method, headers: h, agent: via, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url} within 60 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** One HTTP call to the Worker; returns the status as the outcome label (and the parsed body). */
export async function httpCall(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const h: Record<string, string> = { Authorization: `Bearer ${token}`, ...headers };
  if (body !== undefined) h["Content-Type"] = "application/json";
  const res = await httpRequest(base + path, method, h, body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
  let json: any;
  try {
    json = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}
