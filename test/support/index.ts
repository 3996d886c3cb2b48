// What the suites share: a database of their own, a one-off SQL helper, and the app served over real HTTP.
// Imported as "../support" (the folder's index). Beside it: each capability described for the generic
// suites (capabilities.ts), responses judged against the document (contract.ts), the sequential model
// (model.ts), and vitest's global setup (global-setup.ts) and closing line (summary-reporter.ts).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { serve } from "@hono/node-server";
import pg from "pg";
import type { Browser, Page } from "puppeteer-core";
import tar from "tar-fs";
import { afterAll, beforeAll, inject } from "vitest";
import { type Bridge, type Faults, startBridge } from "../../dev/bridge";
import { ROOT } from "../../dev/local";
import { type PgHandle, postmasterPid, startPostgres } from "../../dev/postgres";
import { signalTree } from "../../dev/proc";
import { ownSocket, startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import { createClient } from "../../functions/core/db";
import type { Bindings } from "../../functions/core/env";
import { app } from "../../functions/index";
import { migrate } from "../../tools/migrate";

export const TOKEN = "test-token-" + Math.random().toString(36).slice(2);

/** A connected Neon-driver client on `url`, through the test bridge. */
export async function connect(url: string) {
  const client = createClient({ DATABASE_URL: url, NEON_WS_PROXY: inject("wsProxy") });
  await client.connect();
  return client;
}

/** Runs one statement on `url` through the bridge and returns its rows. */
export async function sql<R = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = await connect(url);
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

/**
 * A new database cloned from the migrated template (this suite's rows only), or empty with `migrated: false`;
 * with `timezone`, every session on it starts in that TimeZone (ALTER DATABASE … SET timezone).
 */
export async function freshDatabase(label: string, { migrated = true, timezone }: { migrated?: boolean; timezone?: string } = {}): Promise<string> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, "_").toLowerCase()}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  // Bounded below the hooks' timeout, so a setup that stalls here says so: a Worker suite's 300 s hook
  // running out would say nothing of where.
  await boundedStep(`${label}: a fresh database (CREATE DATABASE through the bridge)`, 90_000, () =>
    sql(inject("adminUrl"), `CREATE DATABASE ${name}${migrated ? " TEMPLATE admit_template" : ""}`),
  );
  if (timezone) await sql(inject("adminUrl"), `ALTER DATABASE ${name} SET timezone = '${timezone.replace(/'/g, "''")}'`);
  const url = new URL(inject("templateUrl"));
  url.pathname = "/" + name;
  return url.toString();
}

export function bindings(databaseUrl: string, extra: Partial<Bindings> = {}): Bindings {
  return { DATABASE_URL: databaseUrl, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, ...extra };
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves the Worker's app on a loopback port, with `waitUntil` work awaited on close. */
export async function serveApp(env: Bindings): Promise<Served> {
  const pending = new Set<Promise<unknown>>();
  const ctx = {
    waitUntil(p: Promise<unknown>) {
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    passThroughOnException() {},
    props: {},
  };
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: (req) => app.fetch(req, env, ctx), port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...pending]);
    },
  };
}

/** A small HTTP client for the API: JSON in, parsed JSON (or text) out, with the token unless told otherwise. */
export function client(base: string, token: string | null = TOKEN) {
  return async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      h["Content-Type"] ??= "application/json";
    }
    const res = await fetch(base + path, { method, headers: h, body: payload });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

/**
 * The request budget of the suites below unless they set their own: they judge decisions, not
 * latency (the fault suites, which judge the budget, set DB_BUDGET_MS themselves), so a neighbour's
 * load on the machine stalling one statement past the production default (5 s) must not fail them.
 */
export const SUITE_BUDGET_MS = "30000";

/** A suite's own database (in `timezone`, when given) and the app served on it for the suite's lifetime. */
export function servedApp(label: string, extra: Partial<Bindings> = {}, { timezone }: { timezone?: string } = {}) {
  const suite = {} as { db: string; server: Served; api: ReturnType<typeof client> };
  beforeAll(async () => {
    suite.db = await freshDatabase(label, { timezone });
    suite.server = await serveApp(bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS, ...extra }));
    suite.api = client(suite.server.url);
  });
  afterAll(async () => suite.server?.close());
  return suite;
}

/**
 * A suite's own database and the Worker serving it in the real Workers runtime (`wrangler dev`), a
 * connection per request; `api` sends to the Worker's own socket (ownSocket). `worker.url` is the
 * dev proxy's, the address a person (and the browser suites) would open.
 */
export function workerSuite(label: string, opts: { config?: string | string[]; vars?: Record<string, string> } = {}) {
  const suite = {} as { db: string; worker: WranglerDev; api: ReturnType<typeof client> };
  beforeAll(async () => {
    // Each step says so when it runs out, within the hook's 300 s: the fresh database at 90 s
    // (freshDatabase), wrangler dev's ready wait at 150 s (the rest of its start is bounded per call).
    suite.db = await freshDatabase(label);
    suite.worker = await startWranglerDev({
      config: opts.config,
      direct: true,
      vars: { DATABASE_URL: suite.db, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, DB_BUDGET_MS: SUITE_BUDGET_MS, ...opts.vars },
      // Setup judges nothing: on a loaded 2-core machine, wrangler dev starting beside the other suites'
      // can take past the hooks' 120 s, though alone it takes about 10 s.
      readyTimeoutMs: 150_000,
    });
    suite.api = client(ownSocket(suite.worker));
  }, 300_000);
  afterAll(async () => suite.worker?.stop());
  return suite;
}

/** `fn()`, or an error naming `step` once `ms` have passed without it settling. */
export async function boundedStep<T>(step: string, ms: number, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${step} did not finish within ${ms} ms; the machine may be overloaded (see \`uptime\`), or Postgres or the test bridge stuck`)),
      ms,
    );
  });
  try {
    const result = await Promise.race([fn(), late]);
    // Slow but in time: said, so a run that later runs out shows how close the others came.
    const took = Date.now() - started;
    if (took > ms / 3) console.warn(`[admit] ${step} took ${took} ms`);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long to wait so that `needMs` fit before the end of the current fixed window of `windowMs`
 * (windows start at multiples of their length since the epoch, as the database aligns them): 0 when
 * they fit now, else until 1 s into the next window.
 */
export function waitForRoomInWindow(windowMs: number, needMs: number, now = Date.now()): number {
  const left = windowMs - (now % windowMs);
  return left >= needMs ? 0 : left + 1_000;
}

/**
 * For a test whose checks must land in one fixed window of `windowMs` (counts, a refusal after the
 * limit, `remaining` going down by one): starts them with `needMs` left in a window, waiting (at most
 * `needMs` + 1 s) for the next one when fewer are left. That wait counts against the test's timeout
 * (60 s unless it sets its own): keep `needMs` well under it.
 */
export async function roomInWindow(windowMs: number, needMs: number): Promise<void> {
  const ms = waitForRoomInWindow(windowMs, needMs);
  if (ms === 0) return;
  console.warn(`[admit] under ${needMs} ms left in this ${windowMs} ms window: the test starts in the next one, in ${ms} ms`);
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * roomInWindow for checks on a day's fixed window, which starts at midnight UTC: at least 20 s of the
 * day left (a test that counts checks across midnight would find a fresh window partway through).
 */
export function roomInDay(): Promise<void> {
  return roomInWindow(86_400_000, 20_000);
}

/** Advisory locks (bigint keys) granted to anyone on `url` right now, as signed decimal strings (lockKey's form). */
export async function heldAdvisoryKeys(url: string): Promise<string[]> {
  const rows = await sql<{ key: string }>(
    url,
    "SELECT ((classid::bigint << 32) | objid::bigint)::text AS key FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted",
  );
  return rows.map((r) => r.key);
}

/** Polls `check` every 50 ms until it is true; throws after `ms` (a bound for a broken test, not a timing assertion). */
export async function until(check: () => Promise<boolean>, ms = 10_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `fn` while a test connection holds whatever `statement` locks (an advisory lock, a row lock,
 * an uncommitted row) in an open transaction, which is rolled back afterwards.
 */
export async function whileHolding<T>(url: string, statement: string, params: unknown[], fn: () => Promise<T>): Promise<T> {
  const holder = await connect(url);
  try {
    await holder.query("BEGIN");
    await holder.query(statement, params);
    return await fn();
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end();
  }
}

/** Serves the app on `env` for the duration of `fn` (e.g. with a short LOCK_TIMEOUT_MS), then closes it. */
export async function withServedApp<T>(env: Bindings, fn: (api: ReturnType<typeof client>) => Promise<T>): Promise<T> {
  const served = await serveApp(env);
  try {
    return await fn(client(served.url));
  } finally {
    await served.close();
  }
}

/**
 * Waits until nothing is in flight: no WebSocket session or HTTP request open at `bridge`, and no
 * backend but `query`'s own busy or inside a transaction, on its database (or on every database with
 * `everywhere`). The bridge's idle pooled connections hold nothing, so they do not count. After it,
 * every late commit has landed. Throws after `attempts` × 100 ms: a bound for a broken test.
 */
export async function settled(
  bridge: Pick<Bridge, "stats">,
  query: (text: string) => Promise<Array<{ n: number }>>,
  { everywhere = false, attempts = 100 } = {},
): Promise<void> {
  const scope = everywhere ? "backend_type = 'client backend'" : "datname = current_database()";
  for (let i = 0; i < attempts; i++) {
    const s = bridge.stats();
    if (s.open === 0 && s.httpOpen === 0) {
      const [{ n }] = await query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${scope} AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'`,
      );
      if (n === 0) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("connections to the test database did not settle");
}

/** Runs `fn` with `faults` on `bridge` for the connections it opens meanwhile, then turns them off. */
export async function withFaults<T>(bridge: Pick<Bridge, "setFaults">, faults: Faults, fn: () => Promise<T>): Promise<T> {
  bridge.setFaults(faults);
  try {
    return await fn();
  } finally {
    bridge.setFaults(undefined);
  }
}

/**
 * Sends `sig` to the postmaster of `dataDir` and every process it started (backends, checkpointer,
 * walwriter, …); a SIGSTOP returns once every one of them has stopped (signalTree).
 */
export function signalPostgres(dataDir: string, sig: NodeJS.Signals): void {
  const postmaster = postmasterPid(dataDir);
  if (postmaster === null) throw new Error(`no postmaster.pid in ${dataDir}`);
  signalTree(postmaster, sig);
}

/** A Postgres and bridge of a suite's own, migrated: one it may freeze, stop or restart without stalling the other suites. */
export interface OwnStack {
  pg: PgHandle;
  bridge: Bridge;
  /** DATABASE_URL, NEON_WS_PROXY and API_TOKEN for an app on this stack. */
  env: Bindings;
  /** One statement over plain TCP (not through the bridge), for checks once Postgres answers again. */
  q<R = any>(text: string, params?: unknown[]): Promise<R[]>;
  /** SIGSTOP / SIGCONT of every Postgres process (signalPostgres). */
  freeze(): void;
  thaw(): void;
  /** Postgres down (a crash, a restart) and up again on the same port and data: `pg` is the new handle. */
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** Thaws if frozen, closes the bridge, stops Postgres and removes its data. */
  stop(): Promise<void>;
}

export async function ownStack(label: string, { persistent = false }: { persistent?: boolean } = {}): Promise<OwnStack> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `admit-${label}-`));
  fs.chmodSync(tmp, 0o755); // as root, postgres runs as user "postgres" and must enter tmp
  let pgh = await startPostgres({ dataDir: path.join(tmp, "data"), persistent });
  const bridge = await startBridge();
  await migrate({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy });
  let frozen = false;
  return {
    get pg() {
      return pgh;
    },
    bridge,
    env: { DATABASE_URL: pgh.url, NEON_WS_PROXY: bridge.wsProxy, API_TOKEN: TOKEN },
    async q<R>(text: string, params: unknown[] = []) {
      // Bounded: a frozen or stopped Postgres must fail the check, not hang the suite.
      const c = new pg.Client({ connectionString: pgh.url, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
      await c.connect();
      try {
        return (await c.query(text, params)).rows as R[];
      } finally {
        await c.end();
      }
    },
    freeze() {
      signalPostgres(pgh.dataDir, "SIGSTOP");
      frozen = true;
    },
    thaw() {
      signalPostgres(pgh.dataDir, "SIGCONT");
      frozen = false;
    },
    async stopPostgres() {
      await pgh.stop();
    },
    async startPostgres() {
      pgh = await startPostgres({ dataDir: pgh.dataDir, port: pgh.port, persistent });
    },
    async stop() {
      if (frozen) signalPostgres(pgh.dataDir, "SIGCONT");
      await bridge.close();
      await pgh.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir`, at any depth, whose name ends with `ext` (e.g. ".ts"), as a path joined onto `dir`. */
export function filesUnder(dir: string, ext: string): string[] {
  return fs.readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return fs.statSync(p).isDirectory() ? filesUnder(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

/**
 * Where a committed generated file and a fresh generation first part, with a few lines of each
 * around it (named by `labels`); null when they are equal. For the tests that keep generated files
 * (schema/current/*.sql, packages/client/src/schema.d.ts) in step.
 */
export function firstDifference(committed: string, fresh: string, labels: { committed: string; fresh: string }): string | null {
  if (committed === fresh) return null;
  const a = committed.split("\n");
  const b = fresh.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 2);
  const show = (lines: string[]) =>
    lines
      .slice(from, i + 4)
      .map((l, k) => `  ${String(from + k + 1).padStart(5)} | ${l}`)
      .join("\n") || "  (end of file)";
  return `first difference at line ${i + 1}:\n${labels.committed}:\n${show(a)}\n${labels.fresh}:\n${show(b)}`;
}

/** A Chromium to launch: its binary, what its process needs added to its environment, and where it was found. */
export interface Chromium {
  executablePath: string;
  env: Record<string, string>;
  from: string;
}

let npmChromium: Promise<Chromium> | undefined;

/**
 * The Chromium the browser suites drive (puppeteer-core): ADMIT_CHROMIUM if set, else `chromium` on
 * the PATH, else the one that comes with `npm ci` inside the @sparticuz/chromium package (unpacked
 * once, see unpackNpmChromium). Throws when ADMIT_CHROMIUM names nothing or the package is not
 * installed: a suite without a browser fails, it never skips.
 */
export function findChromium(): Promise<Chromium> {
  const fromEnv = process.env.ADMIT_CHROMIUM;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) {
      return Promise.reject(
        new Error(
          `ADMIT_CHROMIUM is ${fromEnv}, and there is nothing there: point it at a Chromium/Chrome binary, or unset it to use the one npm ci installs.`,
        ),
      );
    }
    return Promise.resolve({ executablePath: fromEnv, env: {}, from: "ADMIT_CHROMIUM" });
  }
  let onPath = "";
  try {
    onPath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    /* not on the PATH */
  }
  if (onPath) return Promise.resolve({ executablePath: onPath, env: {}, from: "chromium on the PATH" });
  npmChromium ??= unpackNpmChromium();
  return npmChromium;
}

/**
 * @sparticuz/chromium's browser (a headless-shell build) ships brotli-compressed in the package:
 * the binary, Open Sans (its only font), SwiftShader's GL libraries, and the NSS and expat libraries
 * it links to (al2023.tar.br). Its own executablePath() unpacks to a fixed os.tmpdir()/chromium with
 * no guard against two unpacking at once (the two browser suites run in parallel) and takes the
 * libraries and fonts only on AWS Lambda; so this unpacks the same files into
 * node_modules/.cache/admit-chromium/<version> (a staging folder renamed into place, so a reader
 * sees all or nothing; npm ci starts it anew), and the browser gets them through LD_LIBRARY_PATH
 * and FONTCONFIG_FILE. Open Sans has no monospace face and no arrows (→), so the fonts are first
 * DejaVu's (the dejavu-fonts-ttf package, the fonts Debian's fonts-dejavu-core has), with their own
 * family rules (monospace → DejaVu Sans Mono). The browser then needs no system library beyond glibc and libgcc_s
 * and no system font, and nothing is downloaded.
 */
async function unpackNpmChromium(): Promise<Chromium> {
  const require = createRequire(import.meta.url);
  let pkg: string;
  let dejavu: string;
  try {
    pkg = path.resolve(path.dirname(require.resolve("@sparticuz/chromium")), "..", "..");
    dejavu = path.dirname(require.resolve("dejavu-fonts-ttf/package.json"));
  } catch (err) {
    throw new Error(
      `No Chromium: the browser tests drive a real one: ADMIT_CHROMIUM set to a Chromium/Chrome binary, else \`chromium\` on the PATH, else the one from the @sparticuz/chromium and dejavu-fonts-ttf packages, which are not installed (run npm ci): ${err}`,
    );
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string };
  const dir = path.join(ROOT, "node_modules", ".cache", "admit-chromium", version);
  const env = {
    LD_LIBRARY_PATH: [path.join(dir, "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
    FONTCONFIG_FILE: path.join(dir, "fonts.conf"),
    FONTCONFIG_PATH: dir,
    // Under LANG=C.UTF-8 this build's navigator.language is "en-US@posix", which Intl refuses
    // (RangeError: Invalid language tag); Debian's Chromium says "en-US" there. --lang does not change it.
    LANG: "en_US.UTF-8",
  };
  const chromium = { executablePath: path.join(dir, "chromium"), env, from: `@sparticuz/chromium ${version} (npm)` };
  if (fs.existsSync(dir)) return chromium;
  const staging = `${dir}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  const bin = path.join(pkg, "bin");
  const unbrotli = (file: string) => fs.createReadStream(path.join(bin, file)).pipe(zlib.createBrotliDecompress());
  await pipeline(unbrotli("chromium.br"), fs.createWriteStream(path.join(staging, "chromium"), { mode: 0o755 }));
  for (const file of ["fonts.tar.br", "swiftshader.tar.br", "al2023.tar.br"]) await pipeline(unbrotli(file), tar.extract(staging));
  // In place of the package's fonts.conf, which names Lambda's folders (/tmp/fonts, /opt/fonts).
  const fontsConf = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    "<fontconfig>",
    `  <dir>${path.join(dejavu, "ttf")}</dir>`,
    `  <dir>${path.join(dir, "fonts")}</dir>`,
    ...["sans", "serif", "sans-mono"].map((f) => `  <include>${path.join(dejavu, "fontconfig", `57-dejavu-${f}.conf`)}</include>`),
    `  <cachedir>${path.join(dir, "fonts-cache")}</cachedir>`,
    "</fontconfig>",
  ];
  fs.writeFileSync(path.join(staging, "fonts.conf"), `${fontsConf.join("\n")}\n`);
  try {
    fs.renameSync(staging, dir);
  } catch (err) {
    if (!fs.existsSync(dir)) throw err;
    fs.rmSync(staging, { recursive: true, force: true }); // another process unpacked it first
  }
  return chromium;
}

/** A browser page and what it did: every URL asked for, answers of 400 and over and failed requests, errors logged. */
export interface BrowserSession {
  browser: Browser;
  page: Page;
  requested: string[];
  failed: { url: string; status: number | string }[];
  /** console.error messages (with their source URL) and uncaught page errors (a Content-Security-Policy violation among them). */
  consoleErrors: string[];
}

/** Launches Chromium (findChromium) headless with one page at `viewport` (in `timezone`, when given), recording what the page does. */
export async function launchBrowser({ viewport, timezone }: { viewport: { width: number; height: number }; timezone?: string }): Promise<BrowserSession> {
  const chromium = await findChromium();
  // Loaded here, not at the top: every suite imports this file, and only the browser suites need it.
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer
    .launch({
      executablePath: chromium.executablePath,
      env: { ...process.env, ...chromium.env },
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    })
    .catch((err) => {
      throw new Error(`Chromium from ${chromium.from} (${chromium.executablePath}) did not start: ${err}`);
    });
  let page: Page;
  try {
    page = await browser.newPage();
    await page.setViewport(viewport);
    if (timezone) await page.emulateTimezone(timezone);
  } catch (err) {
    await browser.close();
    throw err;
  }
  const session: BrowserSession = { browser, page, requested: [], failed: [], consoleErrors: [] };
  const { requested, failed, consoleErrors } = session;
  page.on("request", (r) => void requested.push(r.url()));
  page.on("console", (m) => void (m.type() === "error" && consoleErrors.push(`${m.text()} ${m.location()?.url ?? ""}`.trimEnd())));
  page.on("pageerror", (e) => void consoleErrors.push(String(e)));
  page.on("requestfailed", (r) => void failed.push({ url: r.url(), status: r.failure()?.errorText ?? "failed" }));
  page.on("response", (r) => void (r.status() >= 400 && failed.push({ url: r.url(), status: r.status() })));
  return session;
}
