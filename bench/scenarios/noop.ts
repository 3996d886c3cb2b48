// edge-noop: Admit's own Worker, reached the same way as every edge row (its own workerd socket), on
// `GET /`, a route that touches no database (the `database()` middleware only creates the request's
// handle; nothing connects until a query). What the runtime, Hono and the load generator cost by
// themselves: every one-statement Admit edge row is read against it (≥ 0.35×).
import { atEdgeConcurrencies, edge, type Scenario } from "../measure";

export const NOOP_SCENARIO = "edge-noop";

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
        op: async (call) => String((await call("GET", "/")).status),
      }),
    ),
};
