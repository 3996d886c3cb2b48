// What the parts of one bridge share: its counters, its log, its bounds and the connections a
// partition (`dropAll`) must be able to cut.
import type net from "node:net";
import type { FaultPlans } from "./faults";
import type { SqlPools } from "./sql-pools";
import type { Turns } from "./turns";
import type { BridgeStats } from "./types";

export interface BridgeContext {
  /** The counters, reset in place (`resetStats`). */
  readonly stats: BridgeStats;
  readonly log: (line: string) => void;
  readonly faults: FaultPlans;
  /** How long a request may wait for a session or a pooled connection before it is refused, not run. */
  readonly queueMs: number;
  /** Added to every HTTP SQL request and WebSocket round trip, half each way (BridgeOptions.rttMs). */
  readonly rttMs: number;
  /** The WebSocket path's bound, and its turns. */
  readonly maxSessions: number;
  readonly turns: Turns;
  /** The HTTP SQL path's pools. */
  readonly pools: SqlPools;
  /** Postgres connections of the WebSocket path now open. */
  readonly upstreams: Set<net.Socket>;
  /** Sockets with an HTTP SQL request in flight. */
  readonly sqlSockets: Set<net.Socket>;
}
