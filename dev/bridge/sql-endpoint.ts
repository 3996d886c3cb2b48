// `POST /sql`, Neon's HTTP SQL endpoint (sql-wire.ts) served by the bridge: the request's target
// checked as the WebSocket path's is (loopback only), then run on the bounded pools (sql-pools.ts),
// or, in fault mode, cut or stalled at the point the plan names.
import http from "node:http";
import type { BridgeContext } from "./context";
import { answerText, notRun, parseSqlRequest, type SqlAnswer, type SqlRequest, sqlTexts } from "./sql-wire";
import { parseTarget, type Refusal, type Target } from "./target";
import type { Faults } from "./types";

// The largest HTTP SQL request body accepted (Neon's own limit is larger; nothing here comes near it).
const MAX_SQL_BODY = 8 << 20;

/** Serves one `POST /sql`. */
export async function serveSql(ctx: BridgeContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { stats, log, pools, sqlSockets } = ctx;
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
  const target = targetOf(connectionString);
  if ("status" in target) {
    if (target.status === 403) stats.refused++;
    log(`bridge: /sql ${target.message}`);
    return send(res, notRun("08004", target.message));
  }
  const where = `${target.host}:${target.port}`;
  const plan = ctx.faults.take();
  if (!plan) {
    // Distance: half the round trip before the statement reaches Postgres, half before the answer leaves.
    const halfRtt = ctx.rttMs / 2;
    if (halfRtt > 0) await sleep(halfRtt);
    const answer = await pools.run(connectionString, where, request, () => gone);
    if (halfRtt > 0) await sleep(halfRtt);
    if (answer) send(res, answer);
    return;
  }
  await serveWithFaults(ctx, res, { ...plan, delayMs: (plan.delayMs ?? 0) + ctx.rttMs / 2 }, headBytes(req) + Buffer.byteLength(body), request, () =>
    pools.run(connectionString, where, request, () => false),
  );
}

/** The Postgres a `Neon-Connection-String` names, checked as a WebSocket session's address is. */
function targetOf(connectionString: string): Target | Refusal {
  try {
    const u = new URL(connectionString);
    return parseTarget(`/v1?address=${encodeURIComponent(`${u.hostname}:${u.port || 5432}`)}`);
  } catch {
    return { status: 400, message: "missing or invalid Neon-Connection-String header" };
  }
}

type Cut = "drop" | "stall" | undefined;

/**
 * The fault plans of the WebSocket path, as they fall on one HTTP request: the request's head and
 * body are the client's two messages, the answer's head and body the server's, and bytes count as
 * on the wire. A cut before the statement runs destroys the socket unanswered; a cut after it lets it
 * run (a single statement commits), then destroys the socket, or sends part of the answer first.
 */
async function serveWithFaults(
  ctx: BridgeContext,
  res: http.ServerResponse,
  plan: Faults,
  requestBytes: number,
  request: SqlRequest,
  run: () => Promise<SqlAnswer | undefined>,
): Promise<void> {
  const { stats } = ctx;
  if (plan.refuse) {
    stats.faultRefused++;
    return send(res, notRun("08006", "fault mode: refusing new connections; nothing was run"));
  }
  const delay = plan.delayMs ?? 0;
  const randomCut = ctx.faults.randomCut(plan);
  const { before, after } = cutsOf(plan, request, requestBytes, randomCut);
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
  sendCut(ctx, res, answer, plan.dropAfter ?? {}, randomCut - requestBytes);
}

/** Where `plan` cuts or stalls one request: before its statement runs, or after. */
function cutsOf(plan: Faults, request: SqlRequest, requestBytes: number, randomCut: number): { before: Cut; after: Cut } {
  const rule = plan.statement;
  const hit = rule && sqlTexts(request).some((t) => (typeof rule.match === "string" ? t.includes(rule.match) : rule.match.test(t)));
  const limits = plan.dropAfter ?? {};
  let before: Cut;
  let after: Cut;
  if (hit) {
    if (rule.action === "drop-before") before = "drop";
    else if (rule.action === "stall-before") before = "stall";
    else after = rule.action === "drop-after" ? "drop" : "stall";
  }
  if (requestBytes > (limits.clientBytes ?? Infinity) || requestBytes > randomCut) before = "drop";
  if ((limits.clientMessages ?? Infinity) <= 1) before = "drop";
  else if ((limits.clientMessages ?? Infinity) <= 2) after ??= "drop";
  return { before, after };
}

/** Sends the answer, or as much of it as the plan's server-side limits allow and then cuts the socket. */
function sendCut(ctx: BridgeContext, res: http.ServerResponse, answer: SqlAnswer, limits: NonNullable<Faults["dropAfter"]>, randomLeft: number): void {
  const { status, text: payload } = answerText(answer);
  const head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n`;
  const wire = Buffer.from(head + payload);
  const answerBytes = Math.min(limits.serverBytes ?? Infinity, randomLeft, (limits.serverMessages ?? Infinity) <= 1 ? head.length : Infinity);
  if (answerBytes < wire.length) {
    ctx.stats.dropped++;
    const socket = res.socket;
    if (socket) socket.write(wire.subarray(0, Math.max(0, answerBytes)), () => socket.destroy());
    return;
  }
  send(res, answer);
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function send(res: http.ServerResponse, answer: SqlAnswer): void {
  if (res.destroyed) return;
  const { status, text } = answerText(answer);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}
