// The WebSocket path's front: a session's upgrade is checked (loopback target, fault mode), waits
// for its turn among at most `maxSessions` (turns.ts) for at most `queueMs`, then is relayed to
// Postgres; one that gets no turn is told so by a Postgres ErrorResponse (53300) before anything ran.
import http from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import type { BridgeContext } from "./context";
import { errorResponse } from "./pg-wire";
import { BINARY, pipe } from "./relay";
import { pipeWithFaults } from "./relay-faults";
import { parseTarget, type Refusal } from "./target";

/** Serves one upgrade request of `server.on("upgrade")`. */
export function serveUpgrade(ctx: BridgeContext, wss: WebSocketServer, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
  const { stats, log, turns, queueMs, maxSessions } = ctx;
  socket.on("error", () => {});
  const target = parseTarget(req.url);
  if ("status" in target) {
    if (target.status === 403) stats.refused++;
    log(`bridge: ${target.status} ${target.message}`);
    refuse(socket, target);
    return;
  }
  const plan = ctx.faults.take();
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
        if (plan) pipeWithFaults(ctx, ws, target, { ...plan, delayMs: (plan.delayMs ?? 0) + ctx.rttMs / 2 }, release);
        // Distance: every chunk held half the round trip each way, in order (the fault relay's delay).
        else if (ctx.rttMs > 0) pipeWithFaults(ctx, ws, target, { delayMs: ctx.rttMs / 2 }, release);
        else pipe(ctx, ws, target, release);
      });
    });
}

/** Answers an upgrade with a plain HTTP refusal and closes the socket. */
function refuse(socket: Duplex, { status, message }: Refusal): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
