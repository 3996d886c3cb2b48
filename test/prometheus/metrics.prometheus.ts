// A real Prometheus (Debian's `prometheus` package) scrapes Admit's /metrics with a bearer token, and
// a PromQL query through its HTTP API returns the decisions this test made, by outcome; `promtool
// check metrics` finds no problem in the exposition. Not part of `npm test` (it needs the Debian
// package): `npm run test:prometheus` (vitest.prometheus.config.ts), run by .ci/run after `npm test`.
// Without prometheus/promtool it fails, saying how to install them — it never skips.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../dev/local";
import { tallyFor } from "../../functions/core/tally";
import { bindings, roomInDay, servedApp, TOKEN, until } from "../support";

/** A binary from ADMIT_<NAME> or the PATH; throws how to install it when there is none. */
function binary(name: "prometheus" | "promtool"): string {
  const fromEnv = process.env[`ADMIT_${name.toUpperCase()}`];
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`ADMIT_${name.toUpperCase()} is ${fromEnv}, and there is nothing there.`);
    return fromEnv;
  }
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(`No ${name}: this suite runs a real Prometheus. Install Debian's: \`apt-get install -y prometheus\` (or set ADMIT_${name.toUpperCase()}).`);
  }
}

const suite = servedApp("prometheus", { METRICS_FLUSH_MS: "500" });

let prom: ChildProcess | undefined;
let promUrl = "";
let dir = "";
const promLog: string[] = [];

beforeAll(async () => {
  const prometheus = binary("prometheus");
  binary("promtool");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "admit-prometheus-"));
  const target = new URL(suite.server.url).host;
  // Two jobs on the same target: one with the token, one with a wrong one (its scrapes must fail with 401).
  fs.writeFileSync(
    path.join(dir, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: admit",
      "    metrics_path: /metrics",
      "    authorization:",
      "      type: Bearer",
      `      credentials: ${TOKEN}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "  - job_name: admit-wrong-token",
      "    metrics_path: /metrics",
      "    authorization:",
      "      type: Bearer",
      "      credentials: not-the-token",
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = spawn(
    prometheus,
    [
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  for (const s of [prom.stdout!, prom.stderr!]) s.on("data", (b: Buffer) => promLog.push(b.toString()));
  await until(
    async () => {
      if (prom?.exitCode !== null) throw new Error(`prometheus exited (${prom?.exitCode}):\n${promLog.join("")}`);
      return (await fetch(`${promUrl}/-/ready`).catch(() => null))?.status === 200;
    },
    60_000,
    "Prometheus to be ready",
  );
}, 120_000);

afterAll(async () => {
  if (prom && prom.exitCode === null) {
    const exited = new Promise((r) => prom!.once("exit", r));
    prom.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (prom.exitCode === null) prom.kill("SIGKILL");
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  expect(body.status).toBe("success");
  return body.data.result;
}

describe("a real Prometheus scrapes /metrics", () => {
  it("with the bearer token; PromQL returns the decisions this test made, by outcome; the wrong token's scrapes fail", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/prom", { algorithm: "fixed_window", limit: 5, window_ms: 86_400_000 })).status).toBe(201);
    // Its checks must fall in one of the window's days (fixed windows start at midnight UTC).
    await roomInDay();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await suite.api("POST", "/v1/ratelimits/check", { policy: "prom", key: "k" })).status);
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
    // A semaphore of 1: two acquires → one ok, one refused (429: a conflict in admit_decisions_total).
    expect((await suite.api("PUT", "/v1/semaphores/prom-sem", { permits: 1 })).status).toBe(201);
    const acquires = [];
    for (const holder of ["a", "b"]) acquires.push((await suite.api("POST", "/v1/semaphores/prom-sem/acquire", { holder, ttl_ms: 60_000 })).status);
    expect(acquires).toEqual([201, 429]);
    await until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");

    const byOutcome = async () =>
      Object.fromEntries(
        (await query('sum by (outcome) (admit_ratelimit_decisions_total{job="admit",policy="prom"})')).map((r) => [r.metric.outcome, Number(r.value[1])]),
      );
    await until(
      async () => JSON.stringify(await byOutcome()) === JSON.stringify({ allowed: 5, denied: 15 }),
      60_000,
      "Prometheus to have scraped the decisions",
    );
    expect(await byOutcome()).toEqual({ allowed: 5, denied: 15 });
    const sem = await query('admit_decisions_total{job="admit",capability="semaphores",action="acquire"}');
    expect(Object.fromEntries(sem.map((r) => [r.metric.outcome, Number(r.value[1])]))).toEqual({ ok: 1, conflict: 1 });
    expect(Number((await query('admit_permits_in_use{job="admit",kind="semaphore"}'))[0].value[1])).toBe(1);
    // Scraped with the token: up; with a wrong one: down, and Prometheus says why. Each job is scraped
    // on its own schedule: wait until both have been, once.
    await until(async () => (await query("up")).length === 2, 60_000, "Prometheus to have scraped both jobs");
    expect(Object.fromEntries((await query("up")).map((r) => [r.metric.job, Number(r.value[1])]))).toEqual({ admit: 1, "admit-wrong-token": 0 });
    const targets = (await (await fetch(`${promUrl}/api/v1/targets`)).json()) as {
      data: { activeTargets: Array<{ labels: { job: string }; health: string; lastError: string }> };
    };
    const wrong = targets.data.activeTargets.find((t) => t.labels.job === "admit-wrong-token")!;
    expect([wrong.health, wrong.lastError]).toEqual(["down", expect.stringContaining("401")]);
  }, 180_000);

  it("promtool check metrics reports no problem with the exposition", async () => {
    const text = (await suite.api("GET", "/metrics")).text;
    expect(text).toContain("admit_ratelimit_decisions_total{");
    const r = spawnSync(binary("promtool"), ["check", "metrics"], { input: text, encoding: "utf8" });
    expect({ status: r.status, out: `${r.stdout}${r.stderr}`.trim() }).toEqual({ status: 0, out: "" });
  });

  it("the alert rules and the scrape config in docs/observability.md pass promtool check", () => {
    const doc = fs.readFileSync(path.join(__dirname, "../../docs/observability.md"), "utf8");
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    const rules = blocks.find((b) => b.startsWith("groups:"));
    const scrape = blocks.find((b) => b.startsWith("scrape_configs:"));
    expect(rules).toBeDefined();
    expect(scrape).toBeDefined();
    fs.writeFileSync(path.join(dir, "rules.yml"), rules!);
    const r = spawnSync(binary("promtool"), ["check", "rules", path.join(dir, "rules.yml")], { encoding: "utf8" });
    expect({ status: r.status, out: `${r.stdout}${r.stderr}` }).toMatchObject({ status: 0, out: expect.stringContaining("SUCCESS: 3 rules found") });
    // The scrape config with its token file, as a Prometheus would load it.
    fs.writeFileSync(path.join(dir, "admit-token"), "token\n");
    fs.writeFileSync(path.join(dir, "docs-prometheus.yml"), scrape!.replace("/etc/prometheus/admit-token", path.join(dir, "admit-token")));
    const c = spawnSync(binary("promtool"), ["check", "config", path.join(dir, "docs-prometheus.yml")], { encoding: "utf8" });
    expect({ status: c.status, out: `${c.stdout}${c.stderr}` }).toMatchObject({ status: 0, out: expect.stringContaining("SUCCESS") });
  });
});
