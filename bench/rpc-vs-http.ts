// `npx tsx bench/rpc-vs-http.ts [--calls=N] [--concurrency=C]` (also `npm run bench:rpc`)
//
// What a rate-limit check costs a calling Worker over Admit's Service Binding (RPC, the `Admit`
// entrypoint) against the same check over HTTP (POST /v1/ratelimits/check with the bearer token).
// Starts its own throwaway stack on loopback: embedded Postgres, the bridge, the migrations, Admit
// in `wrangler dev`, and the example gateway Worker (examples/gateway) in a second `wrangler dev`
// that shares a dev registry of its own with Admit. The time is taken INSIDE the gateway, around
// the call alone (`performance.now()`: workerd advances it at I/O), so both figures carry the same
// decision (one SQL statement through the bridge) and differ only by the hop: the binding, or an
// HTTP request from the gateway to Admit's own workerd socket (past wrangler's dev proxy) with
// auth, JSON body parsing and zod validation of the route. First sequentially (latency), then
// `concurrency` callers at once (throughput). Prints a small markdown table.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../dev/migrate";
import { startPostgres } from "../dev/postgres";
import { startWranglerDev } from "../dev/wrangler";
import { startBridgeProcess } from "./bridge-process";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const CALLS = arg("calls", 300);
const CONCURRENCY = arg("concurrency", 8);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function main() {
  const stops: (() => Promise<unknown>)[] = [];
  const registry = mkdtempSync(join(tmpdir(), "admit-rpc-bench-registry-"));
  stops.push(async () => rmSync(registry, { recursive: true, force: true }));
  try {
    const pgh = await startPostgres({ dataDir: mkdtempSync(join(tmpdir(), "admit-rpc-bench-pg-")), persistent: false, database: "admit_bench" });
    stops.push(() => pgh.stop());
    const bridge = await startBridgeProcess();
    stops.push(() => bridge.close());
    await migrate({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy });
    const token = "bench_" + randomBytes(12).toString("base64url");
    const env = { WRANGLER_REGISTRY_PATH: registry };
    const admit = await startWranglerDev({
      env,
      vars: { DATABASE_URL: pgh.url, NEON_WS_PROXY: bridge.wsProxy, API_TOKEN: token },
      devtools: false,
      direct: true,
    });
    stops.push(() => admit.stop());
    const gateway = await startWranglerDev({ env, config: "examples/gateway/wrangler.toml", vars: {}, devtools: false, direct: true });
    stops.push(() => gateway.stop());
    const admitUrl = admit.directUrl ?? admit.url;
    const gatewayUrl = gateway.directUrl ?? gateway.url;
    const put = await fetch(`${admitUrl}/v1/ratelimits/policies/rpc-bench`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ algorithm: "fixed_window", limit: 1_000_000_000, window_ms: 3_600_000, timeout_ms: 60_000 }),
    });
    if (!put.ok) throw new Error(`PUT policy: ${put.status} ${await put.text()}`);

    let n = 0;
    const outer = { rpc: [] as number[], http: [] as number[] };
    const call = async (via: "rpc" | "http"): Promise<number> => {
      const t0 = performance.now();
      const body = JSON.stringify({ policy: "rpc-bench", key: `k${n++ % 64}` });
      const res =
        via === "rpc"
          ? await fetch(`${gatewayUrl}/rpc/checkRateLimit`, { method: "POST", headers: { "Content-Type": "application/json" }, body })
          : await fetch(`${gatewayUrl}/measure/http-check`, {
              method: "POST",
              headers: { "Content-Type": "application/json", "X-Admit-Url": admitUrl, Authorization: `Bearer ${token}` },
              body,
            });
      const j = (await res.json()) as { result: { allowed?: boolean }; ms: number };
      if (j.result?.allowed !== true) throw new Error(`${via}: ${JSON.stringify(j)}`);
      outer[via].push(performance.now() - t0);
      return j.ms;
    };
    // Warm both paths (isolates, the bundle, the bridge's pool).
    for (let i = 0; i < 30; i++) await Promise.all([call("rpc"), call("http")]);
    outer.rpc.length = outer.http.length = 0;

    const rows: string[] = [];
    const seq = { rpc: [] as number[], http: [] as number[] };
    for (let i = 0; i < CALLS; i++) {
      // Interleaved, so a neighbour's load on the machine falls on both alike.
      seq.rpc.push(await call("rpc"));
      seq.http.push(await call("http"));
    }
    for (const via of ["rpc", "http"] as const) {
      rows.push(
        `| ${via === "rpc" ? "Service Binding (RPC)" : "HTTP + bearer token"} | sequential | ${CALLS} | ${quantile(seq[via], 0.5).toFixed(2)} | ${quantile(seq[via], 0.9).toFixed(2)} | ${quantile(outer[via], 0.5).toFixed(2)} | |`,
      );
    }
    for (const via of ["rpc", "http"] as const) {
      const times: number[] = [];
      outer[via].length = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = 0; i < Math.ceil(CALLS / CONCURRENCY); i++) times.push(await call(via));
        }),
      );
      const rate = times.length / ((performance.now() - started) / 1000);
      rows.push(
        `| ${via === "rpc" ? "Service Binding (RPC)" : "HTTP + bearer token"} | ${CONCURRENCY} at once | ${times.length} | ${quantile(times, 0.5).toFixed(2)} | ${quantile(times, 0.9).toFixed(2)} | ${quantile(outer[via], 0.5).toFixed(2)} | ${rate.toFixed(0)} |`,
      );
    }
    console.log("\nA rate-limit check from the gateway Worker, timed inside it (ms)\n");
    console.log(
      "| via | callers | calls | median | p90 | median seen from Node (adds the hop to the gateway) | checks/s (end to end) |\n| --- | --- | --- | --- | --- | --- | --- |",
    );
    console.log(rows.join("\n"));
    const saved = quantile(seq.http, 0.5) - quantile(seq.rpc, 0.5);
    console.log(
      `\nsequential median: the binding saves ${saved.toFixed(2)} ms per check (${((saved / quantile(seq.http, 0.5)) * 100).toFixed(0)} % of the HTTP call)`,
    );
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
