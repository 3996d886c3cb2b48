// What a rate-limit check costs a calling Worker over Admit's Service Binding (RPC, the `Admit`
// entrypoint) against the same check over HTTP (POST /v1/ratelimits/check with the bearer token).
// Used by the `binding-vs-http` scenario of `npm run bench` (scenarios/binding.ts) and by
// `npm run bench:rpc` (rpc-vs-http.ts, a stack of its own). Starts Admit in `wrangler dev` and the
// example gateway Worker (examples/gateway) in a second one, sharing a dev registry of their own,
// over the given database and bridge. The time is taken INSIDE the gateway, around the call alone
// (`performance.now()`: workerd advances it at I/O, in whole ms), so both figures carry the same
// decision (one SQL statement through the bridge) and differ only by the hop: the binding, or an
// HTTP request from the gateway to Admit's own workerd socket (past wrangler's dev proxy) with
// auth, JSON body parsing and zod validation of the route. First one call at a time, interleaved
// (latency), then `concurrency` callers at once (throughput).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownSocket, startWranglerDev } from "../dev/wrangler";
import { httpRequest } from "./load";
import { percentile } from "./report";

export type Via = "rpc" | "http";
export const VIA_LABEL: Record<Via, string> = { rpc: "Service Binding (RPC)", http: "HTTP + bearer token" };

export interface BindingFigures {
  calls: number;
  concurrency: number;
  /** Per call, timed inside the gateway (ms): one at a time, interleaved. */
  sequential: Record<Via, number[]>;
  /** The same calls as seen from Node (adds the hop to the gateway), one at a time. */
  outer: Record<Via, number[]>;
  /** `concurrency` callers at once: per call inside the gateway, and end-to-end checks per second. */
  concurrent: Record<Via, { times: number[]; rate: number }>;
}

/** Nearest-rank percentile (p in 0..100) of times in any order, as bench/report/ takes them; NaN for none. */
const pct = (xs: number[], p: number) => percentile(Float64Array.from(xs).sort(), p) ?? Number.NaN;
export const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

export async function measureBinding(o: {
  databaseUrl: string;
  wsProxy: string;
  calls: number;
  concurrency: number;
  log: (line: string) => void;
}): Promise<BindingFigures> {
  const stops: (() => Promise<unknown>)[] = [];
  const registry = mkdtempSync(join(tmpdir(), "admit-rpc-bench-registry-"));
  stops.push(async () => rmSync(registry, { recursive: true, force: true }));
  try {
    const token = "bench_" + randomBytes(12).toString("base64url");
    const env = { WRANGLER_REGISTRY_PATH: registry };
    o.log("    starting Admit and the example gateway Worker (wrangler dev × 2, a dev registry of their own)…");
    const admit = await startWranglerDev({
      env,
      vars: { DATABASE_URL: o.databaseUrl, NEON_WS_PROXY: o.wsProxy, API_TOKEN: token },
      devtools: false,
      direct: true,
    });
    stops.push(() => admit.stop());
    // GATEWAY_TEST_ROUTES: the gateway's /rpc/:method and /measure/http-check, which answer 404 without it.
    const gateway = await startWranglerDev({
      env,
      config: "examples/gateway/wrangler.toml",
      vars: { GATEWAY_TEST_ROUTES: "1" },
      devtools: false,
      direct: true,
    });
    stops.push(() => gateway.stop());
    const admitUrl = ownSocket(admit);
    const gatewayUrl = ownSocket(gateway);
    // httpRequest (bench/load.ts): kept-alive loopback sockets, and no answer within 60 s is an error, not a hang.
    const put = await httpRequest(
      `${admitUrl}/v1/ratelimits/policies/rpc-bench`,
      "PUT",
      { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      JSON.stringify({ algorithm: "fixed_window", limit: 1_000_000_000, window_ms: 3_600_000, timeout_ms: 60_000 }),
    );
    if (put.status < 200 || put.status >= 300) throw new Error(`PUT /v1/ratelimits/policies/rpc-bench answered ${put.status}: ${put.text}`);

    let n = 0;
    const outer: Record<Via, number[]> = { rpc: [], http: [] };
    const call = async (via: Via): Promise<number> => {
      const t0 = performance.now();
      const body = JSON.stringify({ policy: "rpc-bench", key: `k${n++ % 64}` });
      const res =
        via === "rpc"
          ? await httpRequest(`${gatewayUrl}/rpc/checkRateLimit`, "POST", { "Content-Type": "application/json" }, body)
          : await httpRequest(
              `${gatewayUrl}/measure/http-check`,
              "POST",
              { "Content-Type": "application/json", "X-Admit-Url": admitUrl, Authorization: `Bearer ${token}` },
              body,
            );
      let j: { result?: { allowed?: boolean }; ms: number };
      try {
        j = JSON.parse(res.text);
      } catch {
        throw new Error(`a check ${VIA_LABEL[via]} answered ${res.status}, not JSON: ${res.text.slice(0, 200)}`);
      }
      if (j.result?.allowed !== true) throw new Error(`a check ${VIA_LABEL[via]} was not allowed (${res.status}): ${JSON.stringify(j)}`);
      outer[via].push(performance.now() - t0);
      return j.ms;
    };
    // Warm both paths (isolates, the bundle, the bridge's pool).
    for (let i = 0; i < 30; i++) await Promise.all([call("rpc"), call("http")]);
    outer.rpc.length = outer.http.length = 0;

    o.log(`    ${o.calls} checks each way, one at a time, interleaved so a neighbour's load falls on both alike`);
    const sequential: Record<Via, number[]> = { rpc: [], http: [] };
    for (let i = 0; i < o.calls; i++) {
      sequential.rpc.push(await call("rpc"));
      sequential.http.push(await call("http"));
    }
    const seqOuter = { rpc: [...outer.rpc], http: [...outer.http] };
    o.log(`    ${o.calls} checks each way, ${o.concurrency} callers at once`);
    const concurrent = {} as BindingFigures["concurrent"];
    for (const via of ["rpc", "http"] as const) {
      const times: number[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: o.concurrency }, async () => {
          for (let i = 0; i < Math.ceil(o.calls / o.concurrency); i++) times.push(await call(via));
        }),
      );
      concurrent[via] = { times, rate: times.length / ((performance.now() - started) / 1000) };
    }
    return { calls: o.calls, concurrency: o.concurrency, sequential, outer: seqOuter, concurrent };
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
  }
}

/** The figures as a markdown table, and what the binding saves. */
export function bindingReport(f: BindingFigures): string {
  const rows: string[] = [];
  for (const via of ["rpc", "http"] as const) {
    const s = f.sequential[via];
    rows.push(
      `| ${VIA_LABEL[via]} | one at a time | ${s.length} | ${pct(s, 50).toFixed(2)} | ${pct(s, 90).toFixed(2)} | ${pct(f.outer[via], 50).toFixed(2)} | |`,
    );
  }
  for (const via of ["rpc", "http"] as const) {
    const c = f.concurrent[via];
    rows.push(
      `| ${VIA_LABEL[via]} | ${f.concurrency} at once | ${c.times.length} | ${pct(c.times, 50).toFixed(2)} | ${pct(c.times, 90).toFixed(2)} | | ${c.rate.toFixed(0)} |`,
    );
  }
  const saved = mean(f.sequential.http) - mean(f.sequential.rpc);
  return [
    "A rate-limit check from the gateway Worker, timed inside it (ms)",
    "",
    "| via | callers | calls | median | p90 | median seen from Node (adds the hop to the gateway) | checks/s (end to end) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `one at a time: the binding saves ${saved.toFixed(2)} ms per check on average (${((saved / mean(f.sequential.http)) * 100).toFixed(0)} % of the HTTP call); ` +
      `${f.concurrency} at once: ${(f.concurrent.rpc.rate / f.concurrent.http.rate).toFixed(2)}× the checks per second`,
  ].join("\n");
}
