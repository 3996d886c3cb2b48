// WebSocket→TCP bridge with the URL shape of Neon's wsproxy (`/v1?address=host:port`), so
// @neondatabase/serverless can talk to a local Postgres. Dev and tests only.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

export interface BridgeStats {
  connections: number;
  open: number;
  clientMessages: number;
  serverMessages: number;
  clientBytes: number;
  serverBytes: number;
  refused: number;
}

export interface Bridge {
  port: number;
  host: string;
  wsProxy: string;
  stats(): BridgeStats;
  resetStats(): void;
  close(): Promise<void>;
}

export interface BridgeOptions {
  port?: number;
  host?: string;
  log?: (line: string) => void;
}

interface Target {
  host: string;
  port: number;
}

interface Refusal {
  status: 400 | 403 | 404;
  message: string;
}

const BINARY = { binary: true } as const;
// Pause reading from Postgres while this much is queued towards a slow WebSocket client.
const HIGH_WATER = 1 << 20;

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

const zeroStats = (): BridgeStats => ({
  connections: 0, open: 0, clientMessages: 0, serverMessages: 0, clientBytes: 0, serverBytes: 0, refused: 0,
});

export async function startBridge(opts: BridgeOptions = {}): Promise<Bridge> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => {});
  let stats = zeroStats();
  const conns = new Set<Duplex>();
  const upstreams = new Set<net.Socket>();

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = http.createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required\n');
  });
  server.on('connection', (socket: net.Socket) => {
    conns.add(socket);
    socket.once('close', () => conns.delete(socket));
  });

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const target = parseTarget(req.url);
    if ('status' in target) {
      if (target.status === 403) stats.refused++;
      log(`bridge: ${target.status} ${target.message}`);
      refuse(socket, target);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => pipe(ws, target));
  });

  function pipe(ws: WebSocket, target: Target): void {
    stats.connections++;
    stats.open++;
    const upstream = net.connect({ host: target.host, port: target.port });
    upstream.setNoDelay(true);
    upstreams.add(upstream);

    // net.Socket queues writes made while it is still connecting and flushes them in order on
    // connect, so the driver's pipelined startup+password+query needs no extra buffering here.
    ws.on('message', (data: RawData) => {
      const buf = data as Buffer; // binaryType is the default "nodebuffer", without fragments
      stats.clientMessages++;
      stats.clientBytes += buf.length;
      if (!upstream.write(buf)) ws.pause();
    });
    upstream.on('drain', () => ws.resume());

    upstream.on('data', (chunk: Buffer) => {
      stats.serverMessages++;
      stats.serverBytes += chunk.length;
      if (ws.bufferedAmount + chunk.length > HIGH_WATER) {
        upstream.pause();
        ws.send(chunk, BINARY, () => upstream.resume());
      } else {
        ws.send(chunk, BINARY);
      }
    });

    let reached = false;
    upstream.once('connect', () => {
      reached = true;
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      log(`bridge: upstream ${target.host}:${target.port}: ${err.code ?? err.message}`);
      // Postgres was never reached, so nothing the client pipelined can have run. Say so the way a
      // server would (an ErrorResponse, SQLSTATE 08006), as Neon's proxy does, instead of a bare
      // close the client could not tell apart from a connection lost after its write.
      if (!reached && ws.readyState === ws.OPEN) {
        ws.send(errorResponse('08006', `could not connect to Postgres at ${target.host}:${target.port} (${err.code ?? err.message})`), BINARY);
      }
    });
    upstream.on('close', (hadError: boolean) => {
      upstreams.delete(upstream);
      if (ws.readyState === ws.OPEN) ws.close(hadError ? 1011 : 1000);
    });

    ws.on('error', () => upstream.destroy());
    ws.on('close', () => {
      stats.open--;
      // end() rather than destroy() so a Terminate message still queued reaches Postgres.
      if (!upstream.destroyed) upstream.end();
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE'
        ? new Error(`bridge port ${opts.port} in use: set PORT to another port or stop the other process`)
        : err);
    });
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  server.on('error', (err: Error) => log(`bridge: ${err.message}`));
  const port = (server.address() as net.AddressInfo).port;
  log(`bridge listening on ws://${host}:${port}/v1`);

  let closing: Promise<void> | undefined;
  return {
    port,
    host,
    wsProxy: `${host}:${port}/v1`,
    stats: () => ({ ...stats }),
    resetStats: () => {
      stats = { ...zeroStats(), open: stats.open };
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const ws of wss.clients) ws.terminate();
        for (const s of upstreams) s.destroy();
        for (const c of conns) c.destroy();
        wss.close();
      });
      return closing;
    },
  };
}

function parseTarget(url: string | undefined): Target | Refusal {
  const u = new URL(url ?? '/', 'http://bridge');
  if (u.pathname !== '/v1' && u.pathname !== '/v2') return { status: 404, message: `unknown path ${u.pathname}` };
  const address = u.searchParams.get('address');
  const m = address ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address) : null;
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) return { status: 400, message: `missing or invalid address "${address ?? ''}"` };
  const name = (m[1] ?? m[2] ?? '').toLowerCase();
  // Only literal loopback addresses: names are never resolved, so DNS cannot redirect us.
  if (name === 'localhost') return { host: '127.0.0.1', port };
  const family = net.isIPv4(name) ? 'ipv4' : net.isIPv6(name) ? 'ipv6' : undefined;
  if (family && LOOPBACK.check(name, family)) return { host: name, port };
  return { status: 403, message: `target ${address} is not a loopback address` };
}

/** A Postgres wire-protocol ErrorResponse ('E') with severity FATAL. */
function errorResponse(sqlstate: string, message: string): Buffer {
  const fields = Buffer.concat(
    [['S', 'FATAL'], ['V', 'FATAL'], ['C', sqlstate], ['M', message]].map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')),
  );
  const out = Buffer.alloc(1 + 4 + fields.length + 1);
  out.write('E', 0, 'ascii');
  out.writeInt32BE(4 + fields.length + 1, 1);
  fields.copy(out, 5);
  out[out.length - 1] = 0;
  return out;
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
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
