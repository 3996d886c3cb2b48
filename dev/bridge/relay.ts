// The WebSocket→TCP relay: each WebSocket session gets one Postgres connection, and bytes pass both
// ways unchanged, with backpressure each way.
import net from "node:net";
import type { RawData, WebSocket } from "ws";
import type { BridgeContext } from "./context";
import { errorResponse } from "./pg-wire";
import type { Target } from "./target";

export const BINARY = { binary: true } as const;
// Pause reading from Postgres while this much is queued towards a slow WebSocket client.
const HIGH_WATER = 1 << 20;

/** The plain relay: every byte passed on as it comes. */
export function pipe(ctx: BridgeContext, ws: WebSocket, target: Target, release: () => void): void {
  const { stats } = ctx;
  const upstream = openUpstream(ctx, ws, target, release);

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

/**
 * Connects to Postgres and wires the parts common to both relays: errors, close, stats. `release`
 * runs once the Postgres connection has closed; `after` lets a delaying relay deliver what it still
 * holds before passing a close on.
 */
export function openUpstream(
  ctx: BridgeContext,
  ws: WebSocket,
  target: Target,
  release: () => void,
  after: (fn: () => void) => void = (fn) => fn(),
): net.Socket {
  const { stats, log, upstreams } = ctx;
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
