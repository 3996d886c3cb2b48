// The local stand-in for Neon's proxy, loopback only, dev and tests only. It serves both of Neon's
// ways in:
// - WebSocket→TCP in the URL shape of Neon's wsproxy (`/v1?address=host:port`), for the driver's
//   `Client` (interactive transactions). At most `maxSessions` Postgres sessions are open at once;
//   the rest wait their turn, as behind Neon's `-pooler` endpoint.
// - Neon's HTTP SQL endpoint (`POST /sql`, dev/sql-http.ts), for `neon()`: one statement (or a
//   fixed batch) per request, run on a bounded pool of Postgres connections per database.
// A request that gets no session or pooled connection within `queueMs` is answered with a
// Postgres-style error (SQLSTATE 53300) before anything ran, so the Worker can say 503 for certain.
//
// Fault mode (tests): `bridge.setFaults({...})` makes the connections opened from then on misbehave
// in a controlled way — refused, delayed, cut after N bytes or Postgres messages in either
// direction, cut at a random point, or cut/stalled just before or just after a chosen statement
// (e.g. COMMIT) reaches Postgres. Without faults the relay is the plain pass-through it always was.
import http from "node:http";
import net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { answerText, notRun, parseSqlRequest, type SqlAnswer, SqlPools, type SqlRequest, sqlTexts } from "./sql-http";

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
}

export const BRIDGE_DEFAULTS = { maxSessions: 100, poolSize: 10, queueMs: 3_000 } as const;

interface Target {
  host: string;
  port: number;
}

interface Refusal {
  status: 400 | 403 | 404 | 503;
  message: string;
}

const BINARY = { binary: true } as const;
// Pause reading from Postgres while this much is queued towards a slow WebSocket client.
const HIGH_WATER = 1 << 20;

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

const zeroStats = (): BridgeStats => ({
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

// The largest HTTP SQL request body accepted (Neon's own limit is larger; nothing here comes near it).
const MAX_SQL_BODY = 8 << 20;

/** A FIFO of waiters for at most `max` sessions at once. */
class Turns {
  private used = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly max: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves true with a turn, or false when none came within `ms` or `cancel` fired first. */
  take(ms: number, cancel: (fn: () => void) => void): Promise<boolean> {
    if (this.used < this.max) {
      this.used++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const leave = (got: boolean) => {
        clearTimeout(timer);
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(got);
      };
      const grant = () => leave(true); // the releaser has passed its turn on: `used` is unchanged
      const timer = setTimeout(() => leave(false), ms);
      this.queue.push(grant);
      cancel(() => leave(false));
    });
  }

  give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.used--;
  }
}

export async function startBridge(opts: BridgeOptions = {}): Promise<Bridge> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  let stats = zeroStats();
  const conns = new Set<Duplex>();
  const upstreams = new Set<net.Socket>();
  let faults: Faults | undefined;
  let faultedLeft = Infinity;
  let rng = mulberry32(0);

  const queueMs = opts.queueMs ?? BRIDGE_DEFAULTS.queueMs;
  const maxSessions = opts.maxSessions ?? BRIDGE_DEFAULTS.maxSessions;
  const poolSize = opts.poolSize ?? BRIDGE_DEFAULTS.poolSize;
  const turns = new Turns(maxSessions);
  const pools = new SqlPools({ size: poolSize, queueMs, log });
  /** Sockets with an HTTP SQL request in flight, so a partition can cut them. */
  const sqlSockets = new Set<net.Socket>();

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = http.createServer(
    {
      // The client closes idle keep-alive connections, never the bridge: with Node's default (5 s) the
      // bridge closed sockets workerd was about to reuse, and a statement sent on one was lost unrun.
      keepAliveTimeout: 10 * 60_000,
    },
    (req, res) => {
      if (new URL(req.url ?? "/", "http://bridge").pathname === "/sql") {
        if (req.method === "POST") return void serveSql(req, res);
        res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("POST a query to /sql\n");
        return;
      }
      res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required (or POST /sql)\n");
    },
  );
  server.on("connection", (socket: net.Socket) => {
    conns.add(socket);
    socket.once("close", () => conns.delete(socket));
  });

  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    const target = parseTarget(req.url);
    if ("status" in target) {
      if (target.status === 403) stats.refused++;
      log(`bridge: ${target.status} ${target.message}`);
      refuse(socket, target);
      return;
    }
    const plan = takePlan();
    if (plan?.refuse) {
      stats.faultRefused++;
      refuse(socket, { status: 503, message: "fault mode: refusing new connections" });
      return;
    }
    stats.sessionsWaiting++;
    void turns
      .take(queueMs, (cancel) => socket.once("close", cancel))
      .then((got) => {
        stats.sessionsWaiting--;
        // The turn goes back once, when the Postgres connection closes, or with the client's socket if none was opened (an aborted handshake).
        let held = got;
        const release = () => {
          if (held) {
            held = false;
            turns.give();
          }
        };
        if (socket.destroyed) return release();
        let upstreamOpened = false;
        socket.once("close", () => upstreamOpened || release());
        wss.handleUpgrade(req, socket, head, (ws) => {
          upstreamOpened = got;
          if (!got) {
            // Nothing reached Postgres: say so as a server would (an ErrorResponse with a SQLSTATE), so the driver's error carries it.
            stats.sessionQueueTimeouts++;
            ws.send(
              errorResponse("53300", `no Postgres session was free within ${queueMs} ms (${maxSessions} at once, all busy): nothing was run. Retry shortly.`),
              BINARY,
              () => ws.close(1013),
            );
            return;
          }
          if (plan) pipeWithFaults(ws, target, plan, release);
          else pipe(ws, target, release);
        });
      });
  });

  function pipe(ws: WebSocket, target: Target, release: () => void): void {
    const upstream = openUpstream(ws, target, release);

    // net.Socket queues writes made while it is still connecting and flushes them in order on
    // connect, so the driver's pipelined startup+password+query needs no extra buffering here.
    ws.on("message", (data: RawData) => {
      const buf = data as Buffer; // binaryType is the default "nodebuffer", without fragments
      stats.clientMessages++;
      stats.clientBytes += buf.length;
      if (!upstream.write(buf)) ws.pause();
    });
    upstream.on("drain", () => ws.resume());

    upstream.on("data", (chunk: Buffer) => {
      stats.serverMessages++;
      stats.serverBytes += chunk.length;
      if (ws.bufferedAmount + chunk.length > HIGH_WATER) {
        upstream.pause();
        ws.send(chunk, BINARY, () => upstream.resume());
      } else {
        ws.send(chunk, BINARY);
      }
    });
  }

  /** Connects to Postgres and wires the parts common to both relays: errors, close, stats. */
  function openUpstream(ws: WebSocket, target: Target, release: () => void, after: (fn: () => void) => void = (fn) => fn()): net.Socket {
    stats.connections++;
    stats.open++;
    const upstream = net.connect({ host: target.host, port: target.port });
    upstream.setNoDelay(true);
    upstreams.add(upstream);
    let reached = false;
    upstream.once("connect", () => {
      reached = true;
    });
    upstream.on("error", (err: NodeJS.ErrnoException) => {
      log(`bridge: upstream ${target.host}:${target.port}: ${err.code ?? err.message}`);
      // Postgres was never reached, so nothing the client pipelined can have run. Say so the way a
      // server would (an ErrorResponse, SQLSTATE 08006), as Neon's proxy does, instead of a bare
      // close the client could not tell apart from a connection lost after its write.
      if (!reached && ws.readyState === ws.OPEN) {
        ws.send(errorResponse("08006", `could not connect to Postgres at ${target.host}:${target.port} (${err.code ?? err.message})`), BINARY);
      }
    });
    // `after` lets a delaying relay deliver what it still holds before passing the close on.
    upstream.on("close", (hadError: boolean) => {
      upstreams.delete(upstream);
      release();
      after(() => ws.readyState === ws.OPEN && ws.close(hadError ? 1011 : 1000));
    });

    ws.on("error", () => upstream.destroy());
    ws.on("close", () => {
      stats.open--;
      // end() rather than destroy() so a Terminate message still queued reaches Postgres.
      after(() => !upstream.destroyed && upstream.end());
    });
    return upstream;
  }

  /** The relay in fault mode: parses the Postgres protocol both ways to cut or stall at exact points. */
  function pipeWithFaults(ws: WebSocket, target: Target, plan: Faults, release: () => void): void {
    const delay = plan.delayMs ?? 0;
    // Everything leaves through one FIFO of equal-delay timers, so delayed order is kept.
    const later = (fn: () => void): void => {
      if (delay > 0) setTimeout(fn, delay);
      else fn();
    };
    const upstream = openUpstream(ws, target, release, later);
    const limits = plan.dropAfter ?? {};
    const randomCut = plan.dropAtRandom ? Math.floor(rng() * plan.dropAtRandom.maxBytes) : Infinity;
    const rule = plan.statement;
    let state: "open" | "held" | "stalled" | "dropped" = "open";
    let pendingAfter: StatementFault | undefined; // drop-after/stall-after armed, fires at the end of the statement
    let cBytes = 0,
      sBytes = 0,
      cMsgs = 0,
      sMsgs = 0;
    const fromClient = new MessageSplitter(true);
    const fromServer = new MessageSplitter(false);

    const toServer = (buf: Buffer): void => {
      if (buf.length) later(() => !upstream.destroyed && upstream.write(buf));
    };
    const toClient = (buf: Buffer): void => {
      if (buf.length) later(() => ws.readyState === ws.OPEN && ws.send(buf, BINARY));
    };
    const drop = (): void => {
      if (state === "dropped") return;
      state = "dropped";
      stats.dropped++;
      // Bytes already relayed still arrive (end, not destroy): the cut falls exactly where asked.
      later(() => {
        ws.terminate();
        if (!upstream.destroyed) upstream.end();
      });
    };
    const stall = (as: "held" | "stalled"): void => {
      state = as;
      stats.stalled++;
    };
    const budget = (dir: "c" | "s", len: number): number => {
      const byteLimit = dir === "c" ? (limits.clientBytes ?? Infinity) - cBytes : (limits.serverBytes ?? Infinity) - sBytes;
      return Math.max(0, Math.min(len, byteLimit, randomCut - cBytes - sBytes));
    };

    ws.on("message", (data: RawData) => {
      const buf = data as Buffer;
      stats.clientMessages++;
      stats.clientBytes += buf.length;
      if (state !== "open") return; // held, stalled-after (the client may still send Terminate) or cut
      for (const msg of fromClient.push(buf)) {
        if (rule && !pendingAfter && statementMatches(msg, rule.match)) {
          if (rule.action === "drop-before") return drop();
          if (rule.action === "stall-before") return stall("held");
          pendingAfter = rule.action;
        }
        const n = budget("c", msg.length);
        toServer(msg.subarray(0, n));
        cBytes += n;
        if (n < msg.length) return drop();
        if (++cMsgs >= (limits.clientMessages ?? Infinity)) return drop();
        // A simple Query is one message; an extended-protocol statement ends with its Sync.
        if (pendingAfter && (msg[0] === 0x51 /* Q */ || msg[0] === 0x53) /* S */) {
          if (pendingAfter === "drop-after") return drop();
          return stall("stalled");
        }
      }
    });

    upstream.on("data", (chunk: Buffer) => {
      stats.serverMessages++;
      stats.serverBytes += chunk.length;
      if (state === "stalled" || state === "dropped") return; // Postgres's answer is swallowed
      for (const msg of fromServer.push(chunk)) {
        const n = budget("s", msg.length);
        toClient(msg.subarray(0, n));
        sBytes += n;
        if (n < msg.length) return drop();
        if (++sMsgs >= (limits.serverMessages ?? Infinity)) return drop();
      }
    });
  }

  /** Takes the fault plan for one new connection (an HTTP SQL request counts as one), if any. */
  function takePlan(): Faults | undefined {
    const plan = faults && faultedLeft > 0 ? faults : undefined;
    if (plan) faultedLeft--;
    return plan;
  }

  async function serveSql(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    stats.httpRequests++;
    stats.httpOpen++;
    const socket = req.socket;
    sqlSockets.add(socket);
    let gone = false;
    res.once("close", () => {
      stats.httpOpen--;
      sqlSockets.delete(socket);
      gone = !res.writableFinished;
    });
    const body = await readBody(req);
    if (body === undefined) return void socket.destroy();
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const request = parseSqlRequest(body, header);
    if (typeof request === "string") return send(res, notRun("08P01", `bad request to /sql: ${request}`));
    const connectionString = header("neon-connection-string") ?? "";
    let target: Target | Refusal;
    try {
      const u = new URL(connectionString);
      target = parseTarget(`/v1?address=${encodeURIComponent(`${u.hostname}:${u.port || 5432}`)}`);
    } catch {
      target = { status: 400, message: "missing or invalid Neon-Connection-String header" };
    }
    if ("status" in target) {
      if (target.status === 403) stats.refused++;
      log(`bridge: /sql ${target.message}`);
      return send(res, notRun("08004", target.message));
    }
    const where = `${target.host}:${target.port}`;
    const plan = takePlan();
    if (!plan) {
      const answer = await pools.run(connectionString, where, request, () => gone);
      if (answer) send(res, answer);
      return;
    }
    await serveSqlWithFaults(res, plan, headBytes(req) + Buffer.byteLength(body), request, () => pools.run(connectionString, where, request, () => false));
  }

  /**
   * The fault plans of the WebSocket path, as they fall on one HTTP request: the request's head and
   * body are the client's two messages, the answer's head and body the server's, and bytes count as
   * on the wire. A cut before the statement runs destroys the socket unanswered; a cut after it lets it
   * run (a single statement commits), then destroys the socket, or sends part of the answer first.
   */
  async function serveSqlWithFaults(
    res: http.ServerResponse,
    plan: Faults,
    requestBytes: number,
    request: SqlRequest,
    run: () => Promise<SqlAnswer | undefined>,
  ): Promise<void> {
    if (plan.refuse) {
      stats.faultRefused++;
      return send(res, notRun("08006", "fault mode: refusing new connections; nothing was run"));
    }
    const delay = plan.delayMs ?? 0;
    const rule = plan.statement;
    const hit = rule && sqlTexts(request).some((t) => (typeof rule.match === "string" ? t.includes(rule.match) : rule.match.test(t)));
    const limits = plan.dropAfter ?? {};
    const randomCut = plan.dropAtRandom ? Math.floor(rng() * plan.dropAtRandom.maxBytes) : Infinity;
    let before: "drop" | "stall" | undefined;
    let after: "drop" | "stall" | undefined;
    if (hit) {
      if (rule.action === "drop-before") before = "drop";
      else if (rule.action === "stall-before") before = "stall";
      else after = rule.action === "drop-after" ? "drop" : "stall";
    }
    if (requestBytes > (limits.clientBytes ?? Infinity) || requestBytes > randomCut) before = "drop";
    if ((limits.clientMessages ?? Infinity) <= 1) before = "drop";
    else if ((limits.clientMessages ?? Infinity) <= 2) after ??= "drop";
    if (before === "drop") {
      stats.dropped++;
      return void setTimeout(() => res.socket?.destroy(), delay);
    }
    if (before === "stall") {
      stats.stalled++;
      return; // never run, never answered: the client gives up
    }
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const answer = await run();
    if (!answer) return;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (after === "stall") {
      stats.stalled++;
      return;
    }
    if (after === "drop") {
      stats.dropped++;
      return void res.socket?.destroy();
    }
    const { status, text: payload } = answerText(answer);
    const head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n`;
    const wire = Buffer.from(head + payload);
    const answerBytes = Math.min(limits.serverBytes ?? Infinity, randomCut - requestBytes, (limits.serverMessages ?? Infinity) <= 1 ? head.length : Infinity);
    if (answerBytes < wire.length) {
      stats.dropped++;
      const socket = res.socket;
      if (socket) socket.write(wire.subarray(0, Math.max(0, answerBytes)), () => socket.destroy());
      return;
    }
    send(res, answer);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(err.code === "EADDRINUSE" ? new Error(`bridge port ${opts.port} in use: set PORT to another port or stop the other process`) : err);
    });
    // A burst opens hundreds of connections at once (workerd makes one per concurrent fetch): with
    // Node's default accept backlog (511) the kernel overflowed the queue and the Worker saw
    // "Network connection lost" for requests that never arrived — a 504 for writes that never ran.
    server.listen({ port: opts.port ?? 0, host, backlog: 4096 }, () => resolve());
  });
  server.on("error", (err: Error) => log(`bridge: ${err.message}`));
  const port = (server.address() as net.AddressInfo).port;
  log(`bridge listening on ws://${host}:${port}/v1`);

  let closing: Promise<void> | undefined;
  return {
    port,
    host,
    wsProxy: `${host}:${port}/v1`,
    poolSize,
    maxSessions,
    queueMs,
    stats: () => ({ ...stats, ...pools.stats() }),
    resetStats: () => {
      stats = { ...zeroStats(), open: stats.open, httpOpen: stats.httpOpen, sessionsWaiting: stats.sessionsWaiting };
      pools.resetStats();
    },
    setFaults: (f?: Faults) => {
      faults = f;
      faultedLeft = f?.connections ?? Infinity;
      rng = mulberry32(f?.dropAtRandom?.seed ?? Date.now());
      if (f) log(`bridge: fault mode ${JSON.stringify(f, (_k, v) => (v instanceof RegExp ? String(v) : v))}`);
    },
    dropAll: () => {
      for (const ws of wss.clients) ws.terminate();
      for (const s of upstreams) s.destroy();
      for (const s of sqlSockets) s.destroy();
      pools.cutActive();
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const ws of wss.clients) ws.terminate();
        for (const s of upstreams) s.destroy();
        for (const c of conns) c.destroy();
        wss.close();
      }).then(() => pools.end());
      return closing;
    },
  };
}

function parseTarget(url: string | undefined): Target | Refusal {
  const u = new URL(url ?? "/", "http://bridge");
  if (u.pathname !== "/v1" && u.pathname !== "/v2") return { status: 404, message: `unknown path ${u.pathname}` };
  const address = u.searchParams.get("address");
  const m = address ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address) : null;
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) return { status: 400, message: `missing or invalid address "${address ?? ""}"` };
  const name = (m[1] ?? m[2] ?? "").toLowerCase();
  // Only literal loopback addresses: names are never resolved, so DNS cannot redirect us.
  if (name === "localhost") return { host: "127.0.0.1", port };
  const family = net.isIPv4(name) ? "ipv4" : net.isIPv6(name) ? "ipv6" : undefined;
  if (family && LOOPBACK.check(name, family)) return { host: name, port };
  return { status: 403, message: `target ${address} is not a loopback address` };
}

/** A Postgres wire-protocol ErrorResponse ('E') with severity FATAL. */
function errorResponse(sqlstate: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ["S", "FATAL"],
      ["V", "FATAL"],
      ["C", sqlstate],
      ["M", message],
    ].map(([k, v]) => Buffer.from(`${k}${v}\0`, "utf8")),
  );
  const out = Buffer.alloc(1 + 4 + fields.length + 1);
  out.write("E", 0, "ascii");
  out.writeInt32BE(4 + fields.length + 1, 1);
  fields.copy(out, 5);
  out[out.length - 1] = 0;
  return out;
}

/**
 * Splits a Postgres protocol byte stream into whole messages. The client's first message is the
 * startup packet (no type byte); every other message is type (1 byte) + length (4, including itself).
 */
class MessageSplitter {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private startup: boolean) {}

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Buffer[] = [];
    for (;;) {
      const head = this.startup ? 0 : 1;
      if (this.pending.length < head + 4) break;
      const size = head + this.pending.readInt32BE(head);
      if (size < head + 4 || this.pending.length < size) break;
      out.push(this.pending.subarray(0, size));
      this.pending = this.pending.subarray(size);
      // An SSLRequest/GSSENCRequest is followed by another startup packet; the driver sends none here.
      this.startup = false;
    }
    return out;
  }
}

/** The SQL text of a simple Query ('Q') or a Parse ('P') message, else undefined. */
function statementText(msg: Buffer): string | undefined {
  if (msg[0] === 0x51) return msg.toString("utf8", 5, msg.indexOf(0, 5));
  if (msg[0] === 0x50) {
    const nameEnd = msg.indexOf(0, 5);
    return msg.toString("utf8", nameEnd + 1, msg.indexOf(0, nameEnd + 1));
  }
  return undefined;
}

function statementMatches(msg: Buffer, match: string | RegExp): boolean {
  const text = statementText(msg);
  if (text === undefined) return false;
  return typeof match === "string" ? text.includes(match) : match.test(text);
}

/** A small seeded PRNG, so a random cut can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The request body as text; undefined when it is over MAX_SQL_BODY or the client went away. */
function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SQL_BODY) return resolve(undefined);
      parts.push(chunk);
    });
    req.once("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.once("error", () => resolve(undefined));
    req.once("close", () => resolve(undefined)); // no-op once 'end' resolved it
  });
}

/** The size of a request's head as it came on the wire (request line, headers, blank line). */
function headBytes(req: http.IncomingMessage): number {
  let n = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n\r\n`.length;
  for (let i = 0; i < req.rawHeaders.length; i += 2) n += Buffer.byteLength(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
  return n;
}

function send(res: http.ServerResponse, answer: SqlAnswer): void {
  if (res.destroyed) return;
  const { status, text } = answerText(answer);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

function refuse(socket: Duplex, { status, message }: Refusal): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const bridge = await startBridge({ port: Number(process.env.PORT ?? 8788), log: console.log });
  console.log(`neonConfig.wsProxy = "${bridge.wsProxy}"`);
  const shutdown = (): void => void bridge.close().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
