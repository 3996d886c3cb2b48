// The relay in fault mode: it parses the Postgres protocol both ways, so it can cut or stall a
// connection at an exact byte, message or statement (Faults, types.ts).
import type net from "node:net";
import type { RawData, WebSocket } from "ws";
import type { BridgeContext } from "./context";
import { MessageSplitter, statementMatches } from "./pg-wire";
import { BINARY, openUpstream } from "./relay";
import type { Target } from "./target";
import type { Faults, StatementFault } from "./types";

/** Relays `ws` to `target` under `plan`. */
export function pipeWithFaults(ctx: BridgeContext, ws: WebSocket, target: Target, plan: Faults, release: () => void): void {
  new FaultedRelay(ctx, ws, target, plan, release);
}

class FaultedRelay {
  private readonly delay: number;
  private readonly upstream: net.Socket;
  private readonly limits: NonNullable<Faults["dropAfter"]>;
  private readonly randomCut: number;
  private state: "open" | "held" | "stalled" | "dropped" = "open";
  /** drop-after/stall-after armed: fires at the end of the matched statement. */
  private pendingAfter: StatementFault | undefined;
  private cBytes = 0;
  private sBytes = 0;
  private cMsgs = 0;
  private sMsgs = 0;
  private readonly fromClient = new MessageSplitter(true);
  private readonly fromServer = new MessageSplitter(false);

  constructor(
    private readonly ctx: BridgeContext,
    private readonly ws: WebSocket,
    target: Target,
    private readonly plan: Faults,
    release: () => void,
  ) {
    this.delay = plan.delayMs ?? 0;
    this.upstream = openUpstream(ctx, ws, target, release, (fn) => this.later(fn));
    this.limits = plan.dropAfter ?? {};
    this.randomCut = ctx.faults.randomCut(plan);
    ws.on("message", (data: RawData) => this.fromClientData(data as Buffer));
    this.upstream.on("data", (chunk: Buffer) => this.fromServerData(chunk));
  }

  /** Everything leaves through one FIFO of equal-delay timers, so delayed order is kept. */
  private later(fn: () => void): void {
    if (this.delay > 0) setTimeout(fn, this.delay);
    else fn();
  }

  private fromClientData(buf: Buffer): void {
    this.ctx.stats.clientMessages++;
    this.ctx.stats.clientBytes += buf.length;
    if (this.state !== "open") return; // held, stalled-after (the client may still send Terminate) or cut
    for (const msg of this.fromClient.push(buf)) if (!this.clientMessage(msg)) return;
  }

  /** Passes one whole client message on, as far as the plan lets it; false once the connection is cut or held. */
  private clientMessage(msg: Buffer): boolean {
    const rule = this.plan.statement;
    if (rule && !this.pendingAfter && statementMatches(msg, rule.match)) {
      if (rule.action === "drop-before") return this.drop();
      if (rule.action === "stall-before") return this.stall("held");
      this.pendingAfter = rule.action;
    }
    const n = this.budget("c", msg.length);
    this.toServer(msg.subarray(0, n));
    this.cBytes += n;
    if (n < msg.length) return this.drop();
    if (++this.cMsgs >= (this.limits.clientMessages ?? Infinity)) return this.drop();
    // A simple Query is one message; an extended-protocol statement ends with its Sync.
    if (this.pendingAfter && (msg[0] === 0x51 /* Q */ || msg[0] === 0x53) /* S */) {
      if (this.pendingAfter === "drop-after") return this.drop();
      return this.stall("stalled");
    }
    return true;
  }

  private fromServerData(chunk: Buffer): void {
    this.ctx.stats.serverMessages++;
    this.ctx.stats.serverBytes += chunk.length;
    if (this.state === "stalled" || this.state === "dropped") return; // Postgres's answer is swallowed
    for (const msg of this.fromServer.push(chunk)) {
      const n = this.budget("s", msg.length);
      this.toClient(msg.subarray(0, n));
      this.sBytes += n;
      if (n < msg.length) return void this.drop();
      if (++this.sMsgs >= (this.limits.serverMessages ?? Infinity)) return void this.drop();
    }
  }

  /** How much of a message of `len` bytes may still pass in direction `dir` before a cut. */
  private budget(dir: "c" | "s", len: number): number {
    const byteLimit = dir === "c" ? (this.limits.clientBytes ?? Infinity) - this.cBytes : (this.limits.serverBytes ?? Infinity) - this.sBytes;
    return Math.max(0, Math.min(len, byteLimit, this.randomCut - this.cBytes - this.sBytes));
  }

  private toServer(buf: Buffer): void {
    if (buf.length) this.later(() => !this.upstream.destroyed && this.upstream.write(buf));
  }

  private toClient(buf: Buffer): void {
    if (buf.length) this.later(() => this.ws.readyState === this.ws.OPEN && this.ws.send(buf, BINARY));
  }

  private drop(): false {
    if (this.state === "dropped") return false;
    this.state = "dropped";
    this.ctx.stats.dropped++;
    // Bytes already relayed still arrive (end, not destroy): the cut falls exactly where asked.
    this.later(() => {
      this.ws.terminate();
      if (!this.upstream.destroyed) this.upstream.end();
    });
    return false;
  }

  private stall(as: "held" | "stalled"): false {
    this.state = as;
    this.ctx.stats.stalled++;
    return false;
  }
}
