// edge-noop: Admit's own Worker, reached the same way as every edge row (its own workerd socket), on
// `GET /`, a route that touches no database (the `database()` middleware only creates the request's
// handle; nothing connects until a query). What the runtime, Hono and the load generator cost by
// themselves: every one-statement Admit edge row is read against it (≥ 0.35×).
import { atEdgeConcurrencies, type BenchContext, edge, type Scenario } from "../measure";
import type { Row } from "../report";

export const NOOP_SCENARIO = "edge-noop";

const getRoot = async (call: (method: string, path: string) => Promise<{ status: number }>) => String((await call("GET", "/")).status);

/**
 * The no-op again, right before `scenario`'s edge rows at `concurrency`, in each round, under that
 * scenario's name: its rows are read against the machine as it was then, not as it was when the run
 * began (the edge-noop scenario's rows, first of all; on a shared machine the rate of the same no-op
 * moved from 2 510 to 3 943 req/s between runs, and within one run it drifts too). Not in a pooler
 * profile (its rows are read against the direct run's).
 */
export async function noopBeside(ctx: BenchContext, scenario: string, concurrency: number): Promise<Row | null> {
  if (ctx.profile) return null;
  return edge(ctx, {
    scenario,
    impl: "noop",
    connection: "none",
    concurrency,
    note: "GET / on Admit's Worker right before this scenario's edge rows at this concurrency, each round: what they are read against",
    op: getRoot,
  });
}

export const edgeNoop: Scenario = {
  name: NOOP_SCENARIO,
  async unavailable(ctx) {
    return ctx.worker ? null : "--no-edge";
  },
  run: (ctx) =>
    atEdgeConcurrencies(ctx, (concurrency) =>
      edge(ctx, {
        scenario: NOOP_SCENARIO,
        impl: "noop",
        connection: "none",
        concurrency,
        note: "GET / on Admit's Worker: no database",
        op: getRoot,
      }),
    ),
};
