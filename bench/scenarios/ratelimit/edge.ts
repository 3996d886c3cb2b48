// The edge layer: checks over HTTP through a Worker in wrangler dev, at each edge concurrency.
// Rows that are compared run one right after the other, the first of them alternating or rotating
// by round, so their ratio shares the machine's moment and no row always follows the same one:
// - Admit's Worker as it runs by default ("admit") between its twins, METRICS=off ("nothing added
//   to the hot path") and COALESCE=off (what coalescing gives); a twin whose Worker is not running
//   (pooler profile) is left out;
// - the same check with a scoped key instead of the root token (the hot key);
// - on the hot key, GET /v1/authz as a gateway's forward-auth asks it, and outside a pooler profile
//   the bare driver Worker (bench/peers/driver-worker) over HTTP;
// - on the hot key, a short one-client pair of Admit coalescing on and off ("never slower alone");
// - last, the bare driver Worker over a WebSocket Client per request at each concurrency, so the
//   backends its connections start and end are not in the way of the HTTP rows' figures.
import { httpRequest } from "../../load";
import { type BenchContext, edge } from "../../measure";
import { ALONE, AUTHZ, COALESCE_OFF, DRIVER, METRICS_OFF, type Row } from "../../report";
import { noopBeside } from "../noop";
import { DRIVER_NOTE, excess, HOT, keyOf, type PolicyFor, type Shape } from "./common";

const METRICS_OFF_NOTE = "the same Worker with METRICS=off: no decision counts, no deny-cache counting, no flushes";
const COALESCE_OFF_NOTE = "the same Worker with COALESCE=off: each check its own statement";
/** The one-client pair's decisions: at most this many (and the row's seconds), a short row. */
const ALONE_REQUESTS = 2_000;
const SCOPED = "admit-scoped-key";

/** A key of Admit's Worker with ratelimits:decide on policies matching `pattern` (POST /v1/keys with the root token). */
async function scopedKey(ctx: BenchContext, pattern: string): Promise<string> {
  const { url, token } = ctx.worker!;
  const res = await httpRequest(
    `${url}/v1/keys`,
    "POST",
    { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    JSON.stringify({ name: `bench ${pattern}`, scopes: ["ratelimits:decide"], names: [pattern] }),
  );
  if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text).secret;
}

export async function edgeRows(ctx: BenchContext, shape: Shape, policyFor: PolicyFor, driverAlone: boolean): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
  const twins = {
    admit: { impl: "admit", policy: "admit" },
    "metrics-off": { impl: METRICS_OFF, policy: "admit-metrics-off", worker: ctx.metricsOffWorker, note: METRICS_OFF_NOTE },
    "coalesce-off": { impl: COALESCE_OFF, policy: "admit-coalesce-off", worker: ctx.coalesceOffWorker, note: COALESCE_OFF_NOTE },
  };
  type Twin = keyof typeof twins;
  const admitRow = async (concurrency: number, twin: Twin = "admit", requests?: number) => {
    const t = twins[twin];
    const policy = await policyFor("edge", t.policy, `http-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: t.impl,
      connection: "http",
      concurrency,
      ...(requests === undefined ? {} : { requests }),
      ...("worker" in t ? { worker: t.worker, note: t.note } : {}),
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", "/v1/ratelimits/check", { policy, key: keyOf(shape, i) })).status),
    });
  };
  // Admit between its twins, each one right after or right before it, which of the two alternating by round.
  const admitRowsOnOff = async (concurrency: number) => {
    const order: Twin[] = ctx.round % 2 === 0 ? ["metrics-off", "admit", "coalesce-off"] : ["coalesce-off", "admit", "metrics-off"];
    const got: (Row | null)[] = [];
    for (const t of order) if (t === "admit" || twins[t].worker) got.push(await admitRow(concurrency, t));
    return got;
  };
  // One client, coalescing on and off: with nothing in flight beside it a check goes at once as its
  // own statement, so no slower than off.
  const aloneRows = async () => {
    const got: (Row | null)[] = [];
    const requests = Math.min(ALONE_REQUESTS, ctx.requests);
    const order: Twin[] = ctx.round % 2 === 0 ? ["admit", "coalesce-off"] : ["coalesce-off", "admit"];
    for (const t of order) got.push(await admitRow(ALONE, t, requests));
    return got;
  };
  // A Worker that is only `neon()` (or a WebSocket Client) and this statement.
  const bareRow = async (concurrency: number, connection: "http" | "websocket") => {
    const policy = await policyFor("edge", "driver", `${connection}-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: DRIVER,
      connection,
      concurrency,
      worker: ctx.driverWorker,
      note: DRIVER_NOTE,
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", `/check/${connection}`, { policy, key: keyOf(shape, i) })).status),
    });
  };
  // The scoped key (ratelimits:decide, bounded to this scenario's policies) is verified through the
  // isolate's key cache, so its row and the root token's should be level.
  const scopedSecret = shape === HOT && ctx.worker ? await scopedKey(ctx, `${shape.name}.*`) : undefined;
  const scopedRow = async (concurrency: number) => {
    const policy = await policyFor("edge", SCOPED, `http-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: SCOPED,
      connection: "http",
      concurrency,
      worker: { url: ctx.worker!.url, token: scopedSecret },
      note: "a key with ratelimits:decide on this scenario's policies, beside the root token's row",
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", "/v1/ratelimits/check", { policy, key: keyOf(shape, i) })).status),
    });
  };
  // The root token's rows and the scoped key's, one right after the other, their order alternating by round.
  const admitRows = async (concurrency: number) => {
    const scopedRows = async (c: number) => [await scopedRow(c)];
    const rows = !scopedSecret ? [admitRowsOnOff] : ctx.round % 2 === 0 ? [admitRowsOnOff, scopedRows] : [scopedRows, admitRowsOnOff];
    const got: (Row | null)[] = [];
    for (const row of rows) got.push(...(await row(concurrency)));
    return got;
  };
  // The check as a gateway's forward-auth asks it (the key in a header; docs/gateways.md).
  const authzRow = async (concurrency: number) => {
    const policy = await policyFor("edge", "admit", `authz-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: AUTHZ,
      connection: "http",
      concurrency,
      note: "GET /v1/authz?policy=…&key=header:X-Api-Key (forward-auth)",
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("GET", `/v1/authz?policy=${policy}&key=header:X-Api-Key`, undefined, { "X-Api-Key": keyOf(shape, i) })).status),
    });
  };
  for (const concurrency of ctx.edgeConcurrency) {
    out.push(await noopBeside(ctx, shape.name, concurrency));
    const group: Array<() => Promise<(Row | null)[]>> = [
      () => admitRows(concurrency),
      ...(driverAlone ? [async () => [await bareRow(concurrency, "http")]] : []),
      ...(shape === HOT ? [async () => [await authzRow(concurrency)]] : []),
    ];
    const first = ctx.round % group.length;
    for (const rows of [...group.slice(first), ...group.slice(0, first)]) out.push(...(await rows()));
  }
  // The one-client pair, on the hot key, where the edge rows did not already run at one client.
  if (shape === HOT && !ctx.profile && ctx.coalesceOffWorker && !ctx.edgeConcurrency.includes(ALONE)) out.push(...(await aloneRows()));
  if (driverAlone) for (const concurrency of ctx.edgeConcurrency) out.push(await bareRow(concurrency, "websocket"));
  return out;
}
