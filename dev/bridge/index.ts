// The local stand-in for Neon's proxy, loopback only, dev and tests only. It serves both of Neon's
// ways in:
// - WebSocket→TCP in the URL shape of Neon's wsproxy (`/v1?address=host:port`), for the driver's
//   `Client` (interactive transactions): sessions.ts, relay.ts. At most `maxSessions` Postgres
//   sessions are open at once; the rest wait their turn, as behind Neon's `-pooler` endpoint.
// - Neon's HTTP SQL endpoint (`POST /sql`, sql-endpoint.ts), for `neon()`: one statement (or a
//   fixed batch) per request, run on a bounded pool of Postgres connections per database.
// A request that gets no session or pooled connection within `queueMs` is answered with a
// Postgres-style error (SQLSTATE 53300) before anything ran, so the Worker can say 503 for certain.
//
// Fault mode (tests): `bridge.setFaults({...})` makes the connections opened from then on misbehave
// in a controlled way — refused, delayed, cut after N bytes or Postgres messages in either
// direction, cut at a random point, or cut/stalled just before or just after a chosen statement
// (e.g. COMMIT) reaches Postgres (relay-faults.ts, sql-endpoint.ts). Without faults the relay is a
// plain pass-through.
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { WebSocketServer } from "ws";
import type { BridgeContext } from "./context";
import { FaultPlans } from "./faults";
import { serveUpgrade } from "./sessions";
import { serveSql } from "./sql-endpoint";
import { SqlPools } from "./sql-pools";
import { Turns } from "./turns";
import { BRIDGE_DEFAULTS, type Bridge, type BridgeOptions, type Faults, zeroStats } from "./types";

export { BRIDGE_DEFAULTS, type Bridge, type BridgeOptions, type BridgeStats, type Faults, type StatementFault } from "./types";

export async function startBridge(opts: BridgeOptions = {}): Promise<Bridge> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? (() => {});
  const queueMs = opts.queueMs ?? BRIDGE_DEFAULTS.queueMs;
  const maxSessions = opts.maxSessions ?? BRIDGE_DEFAULTS.maxSessions;
  const poolSize = opts.poolSize ?? BRIDGE_DEFAULTS.poolSize;
  const ctx: BridgeContext = {
    stats: zeroStats(),
    log,
    faults: new FaultPlans(),
    queueMs,
    rttMs: opts.rttMs ?? 0,
    maxSessions,
    turns: new Turns(maxSessions),
    pools: new SqlPools({ size: poolSize, queueMs, log }),
    upstreams: new Set(),
    sqlSockets: new Set(),
  };
  const conns = new Set<Duplex>();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = http.createServer(
    {
      // The client closes idle keep-alive connections, never the bridge: Node's default (5 s) would
      // close sockets workerd is about to reuse, and a statement sent on one would be lost unrun.
      keepAliveTimeout: 10 * 60_000,
    },
    (req, res) => {
      if (new URL(req.url ?? "/", "http://bridge").pathname === "/sql") {
        if (req.method === "POST") return void serveSql(ctx, req, res);
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
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => serveUpgrade(ctx, wss, req, socket, head));
  await listen(server, host, opts.port);
  server.on("error", (err: Error) => log(`bridge: ${err.message}`));
  const port = (server.address() as net.AddressInfo).port;
  log(`bridge listening on ws://${host}:${port}/v1`);
  return handle(ctx, { server, wss, conns, host, port, poolSize });
}

function listen(server: http.Server, host: string, port: number | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(err.code === "EADDRINUSE" ? new Error(`bridge port ${port} in use: set PORT to another port or stop the other process`) : err);
    });
    // A burst opens hundreds of connections at once (workerd makes one per concurrent fetch): with
    // Node's default accept backlog (511) the kernel would overflow the queue and the Worker would see
    // "Network connection lost" for requests that never arrived — a 504 for writes that never ran.
    server.listen({ port: port ?? 0, host, backlog: 4096 }, () => resolve());
  });
}

interface Parts {
  server: http.Server;
  wss: WebSocketServer;
  /** Every client socket the server accepted and that is still open. */
  conns: Set<Duplex>;
  host: string;
  port: number;
  poolSize: number;
}

/** The Bridge its callers hold: its address and limits, its counters, fault mode, partitions, close. */
function handle(ctx: BridgeContext, { server, wss, conns, host, port, poolSize }: Parts): Bridge {
  const { stats, pools, upstreams } = ctx;
  let closing: Promise<void> | undefined;
  return {
    port,
    host,
    wsProxy: `${host}:${port}/v1`,
    poolSize,
    maxSessions: ctx.maxSessions,
    queueMs: ctx.queueMs,
    rttMs: ctx.rttMs,
    stats: () => ({ ...stats, ...pools.stats() }),
    resetStats: () => {
      Object.assign(stats, { ...zeroStats(), open: stats.open, httpOpen: stats.httpOpen, sessionsWaiting: stats.sessionsWaiting });
      pools.resetStats();
    },
    setFaults: (f?: Faults) => {
      ctx.faults.set(f);
      if (f) ctx.log(`bridge: fault mode ${JSON.stringify(f, (_k, v) => (v instanceof RegExp ? String(v) : v))}`);
    },
    dropAll: () => {
      for (const ws of wss.clients) ws.terminate();
      for (const s of upstreams) s.destroy();
      for (const s of ctx.sqlSockets) s.destroy();
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

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const bridge = await startBridge({ port: Number(process.env.PORT ?? 8788), log: console.log });
  console.log(`neonConfig.wsProxy = "${bridge.wsProxy}"`);
  const shutdown = (): void => void bridge.close().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
