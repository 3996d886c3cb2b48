// `npm run bench:gateway [-- --seconds=S] [--concurrency=16,64]`: what Admit's check costs behind
// nginx. One nginx (Debian's) serves a static upstream (`return 200`) and two front doors to it:
// `plain` proxies straight to it, `admit` is examples/gateways/nginx.conf as it is — auth_request to
// Admit's /v1/authz (the Worker in wrangler dev on the bench's stack: embedded Postgres, the bridge)
// before each request. Every request is allowed (a policy of 10^9 per 366 days), one client (one key,
// the hot case). Prints req/s and latency both ways, and the ratio.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { binary, EXAMPLES, freePort, nginxMainConf, render } from "../dev/gateways";
import { ownSocket } from "../dev/wrangler";
import { httpCall, httpRequest, runLoad } from "./load";
import { percentile } from "./report";
import { startStack } from "./stack";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const seconds = Number(arg("seconds") ?? 10);
const concurrencies = (arg("concurrency") ?? "16,64").split(",").map(Number);

async function main() {
  const nginx = binary("nginx");
  const log = (line: string) => console.log(`[bench:gateway] ${line.trim()}`);
  const stack = await startStack({ edge: true, pgbouncer: null, poolSize: 1, log });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admit-bench-nginx-"));
  fs.chmodSync(dir, 0o777);
  let child: ReturnType<typeof spawn> | undefined;
  try {
    const admit = new URL(ownSocket(stack.worker!));
    const put = await httpCall(admit.origin, stack.token, "PUT", "/v1/ratelimits/policies/gateway-api", {
      algorithm: "fixed_window",
      limit: 1_000_000_000,
      window_ms: 366 * 86_400_000,
    });
    if (put.status !== 201 && put.status !== 200) throw new Error(`PUT policy answered ${put.status}`);
    const [staticPort, plainPort, admitPort] = [await freePort(), await freePort(), await freePort()];
    fs.writeFileSync(
      path.join(dir, "upstream.conf"),
      `server { listen 127.0.0.1:${staticPort}; location / { default_type text/plain; return 200 "ok\\n"; } }\n` +
        `upstream static_upstream { server 127.0.0.1:${staticPort}; keepalive 64; }\n` +
        `server { listen 127.0.0.1:${plainPort}; location / { proxy_http_version 1.1; proxy_set_header Connection ""; proxy_pass http://static_upstream; } }\n`,
    );
    fs.writeFileSync(
      path.join(dir, "api.conf"),
      render(fs.readFileSync(path.join(EXAMPLES, "nginx.conf"), "utf8"), {
        LISTEN: `127.0.0.1:${admitPort}`,
        // The documented loopback variant: Admit on this machine, plain HTTP.
        ADMIT_SCHEME: "http",
        ADMIT_ADDR: admit.host,
        ADMIT_HOST: admit.host,
        ADMIT_CA: "/etc/ssl/certs/ca-certificates.crt",
        ADMIT_TOKEN: stack.token,
        ADMIT_TIMEOUT: "10s",
        UPSTREAM_ADDR: `127.0.0.1:${staticPort}`,
      }),
    );
    fs.writeFileSync(path.join(dir, "nginx.conf"), nginxMainConf(dir, ["upstream.conf", "api.conf"]));
    child = spawn(nginx, ["-p", dir, "-c", path.join(dir, "nginx.conf")], { stdio: "inherit" });
    await new Promise((r) => setTimeout(r, 1_000));
    const rows: string[] = [];
    for (const c of concurrencies) {
      const figures: Record<string, { rps: number; p50: number; p99: number; outcomes: string }> = {};
      for (const [name, port] of [
        ["plain", plainPort],
        ["admit", admitPort],
      ] as const) {
        const url = `http://127.0.0.1:${port}/api/orders`;
        await runLoad({ concurrency: c, requests: 1_000, timeLimitMs: 2_000 }, async () => String((await httpRequest(url, "GET", {})).status)); // warm-up
        const r = await runLoad({ concurrency: c, requests: 1_000_000, timeLimitMs: seconds * 1_000 }, async () =>
          String((await httpRequest(url, "GET", {})).status),
        );
        const sorted = [...r.latencies].sort((a, b) => a - b);
        const counts: Record<string, number> = {};
        for (const o of r.outcomes) counts[o] = (counts[o] ?? 0) + 1;
        figures[name] = {
          rps: (r.outcomes.length / r.elapsedMs) * 1000,
          p50: percentile(sorted, 50) ?? Number.NaN,
          p99: percentile(sorted, 99) ?? Number.NaN,
          outcomes: Object.entries(counts)
            .map(([k, v]) => `${k}×${v}`)
            .join(" "),
        };
        log(
          `c=${c} ${name}: ${figures[name].rps.toFixed(0)} req/s, p50 ${figures[name].p50.toFixed(2)} ms, p99 ${figures[name].p99.toFixed(2)} ms [${figures[name].outcomes}]`,
        );
      }
      const { plain, admit: checked } = figures;
      rows.push(
        `| ${c} | ${plain.rps.toFixed(0)} | ${plain.p50.toFixed(2)} / ${plain.p99.toFixed(2)} | ${checked.rps.toFixed(0)} | ${checked.p50.toFixed(2)} / ${checked.p99.toFixed(2)} | ${(checked.rps / plain.rps).toFixed(3)} | ${checked.outcomes} |`,
      );
    }
    console.log(
      `\nnginx ${seconds} s per row; the static upstream and both front doors in one nginx; Admit in wrangler dev over the bench's Postgres and bridge\n\n` +
        "| clients | plain req/s | plain p50 / p99 ms | with auth_request req/s | with p50 / p99 ms | ratio | answers with |\n| --- | --- | --- | --- | --- | --- | --- |\n" +
        rows.join("\n"),
    );
  } finally {
    child?.kill("SIGTERM");
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
