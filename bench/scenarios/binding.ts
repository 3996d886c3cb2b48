// binding-vs-http: a rate-limit check from another Worker, over Admit's Service Binding (the `Admit`
// RPC entrypoint) and over HTTP with the token, timed inside the example gateway Worker
// (bench/binding.ts: two more `wrangler dev`s over the bench's database and bridge). Runs once, in
// the first round and not through PgBouncer (it starts its own Workers); its rows are read against each other, not the
// edge-noop row, and its target is the binding's advantage.
import { bindingReport, mean, measureBinding, VIA_LABEL, type Via } from "../binding";
import { hasFunctions, passLabel, type Scenario } from "../measure";
import { type Row, round, summarize } from "../report";

export const BINDING_SCENARIO = "binding-vs-http";

export const bindingVsHttp: Scenario = {
  name: BINDING_SCENARIO,
  async unavailable(ctx) {
    if (!ctx.worker) return "--no-edge";
    return (await hasFunctions(ctx, "admit_ratelimit_check")) ? null : "rate limits (admit_ratelimit_check) not on this build";
  },
  async run(ctx) {
    if (ctx.round > 0 || ctx.profile) return [];
    const f = await measureBinding({
      databaseUrl: ctx.db.url,
      wsProxy: ctx.db.wsProxy,
      calls: ctx.quick ? 100 : 300,
      concurrency: 8,
      log: ctx.log,
    });
    for (const line of bindingReport(f).split("\n")) ctx.log(`    ${line}`);
    const row = (via: Via, concurrency: number, latencies: number[], rps: number | null): Row => ({
      scenario: BINDING_SCENARIO,
      layer: "edge",
      impl: via === "rpc" ? "binding (RPC)" : "HTTP from a Worker",
      connection: "http",
      concurrency,
      requests: latencies.length,
      throughput_rps: rps === null ? null : round(rps, 1),
      ...summarize(latencies),
      violations: null,
      round_trips_per_decision: null,
      note: `${VIA_LABEL[via]}: a check timed inside the gateway Worker, whole-ms clock${rps === null ? "; one at a time, interleaved with the other way" : "; req/s end to end"}`,
    });
    const ratio = mean(f.sequential.http) / mean(f.sequential.rpc);
    ctx.figure({
      name: `a check from another Worker: over HTTP ÷ over the Service Binding, mean time one at a time${passLabel(ctx)}`,
      value: round(ratio, 2),
      min: 1,
      met: ratio > 1,
      detail:
        `mean ${mean(f.sequential.rpc).toFixed(2)} ms over the binding, ${mean(f.sequential.http).toFixed(2)} ms over HTTP (${f.calls} calls each, timed inside the gateway); ` +
        `${f.concurrency} callers at once: ${f.concurrent.rpc.rate.toFixed(0)} vs ${f.concurrent.http.rate.toFixed(0)} checks/s`,
    });
    return [
      row("rpc", 1, f.sequential.rpc, null),
      row("http", 1, f.sequential.http, null),
      row("rpc", f.concurrency, f.concurrent.rpc.times, f.concurrent.rpc.rate),
      row("http", f.concurrency, f.concurrent.http.times, f.concurrent.http.rate),
    ];
  },
};
