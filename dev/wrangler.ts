// Runs the Worker in the real Workers runtime (`wrangler dev`, workerd) on loopback, for npm start,
// the runtime test suite and the benchmark. Its process group is killed on stop, and by the guard
// (dev/lifeline.ts) if the process that started it dies first, however: no orphans.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { copyBrowserAssets } from "./docs-assets";
import { guardProcessGroup } from "./lifeline";
import { freePort, ROOT } from "./local";
import { describePortHolders, listeningPorts, listProcesses } from "./proc";

const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
/** The admit-pages Worker's config (functions/http/pages.ts), from the repository root. */
export const PAGES_CONFIG = "functions/http/pages/wrangler.toml";

export interface WranglerDev {
  url: string;
  port: number;
  /**
   * With `direct: true`: the user Worker's own workerd socket, behind wrangler's dev proxy (ownSocket);
   * null when it could not be looked for (no /proc). On Linux a start that cannot find it fails.
   */
  directUrl: string | null;
  /** wrangler's process group (its pid): wrangler itself and the workerd processes it runs. */
  pgid: number;
  /** wrangler's inspector port (with `devtools: true`, its DevTools proxy answers at ws://127.0.0.1:<port>/ws). */
  inspectorPort: number;
  stop(): Promise<void>;
}

export interface WranglerOptions {
  /** 0 or undefined = a free port. */
  port?: number;
  vars: Record<string, string>;
  /** Each line wrangler prints, for progress or debugging. */
  log?: (line: string) => void;
  readyTimeoutMs?: number;
  /**
   * Another Worker's wrangler config (path from the repository root), or several run in one workerd
   * (the first on the port; the others reachable over Service Bindings); default: the repository's
   * wrangler.toml beside the pages Worker's.
   */
  config?: string | string[];
  /**
   * true: wrangler's devtools inspector proxy, for attaching Chrome DevTools (default: off). The
   * proxy turns on the devtools Network domain and writes every event of every request to its debug
   * log file — CPU in wrangler's Node process for every request, on top of workerd's — and under a
   * burst it is what broke: with it, a burst of a thousand overflowed the accept queue of wrangler's
   * own Node server and many later POSTs came back 503 "Your worker restarted mid-request" from the
   * dev proxy (docs/performance.md has the figures). Work a deployed Worker never does. The CLI has no flag for it; wrangler and Miniflare
   * skip it when VSCODE_INSPECTOR_OPTIONS is set (a VS Code debug terminal, which attaches its own
   * debugger), so that is what "off" sets. The Worker's console output is printed either way.
   */
  devtools?: boolean;
  /**
   * true: also find the user Worker's own socket (the bench). wrangler 4 runs two workerd processes:
   * its dev proxy (a ProxyWorker that holds requests while the Worker reloads) on the port asked for,
   * and the user Worker on a port of its own that it does not print. Every request through the proxy
   * is a second HTTP hop in a second workerd — about as much CPU as Admit's whole Worker code path
   * (docs/performance.md) — that a deployed Worker never makes.
   */
  direct?: boolean;
  /** Extra environment variables for wrangler, e.g. WRANGLER_REGISTRY_PATH: a dev registry of its own, so two `wrangler dev` processes of one test find each other's Workers (Service Bindings) and no one else's. */
  env?: Record<string, string>;
}

export async function startWranglerDev(opts: WranglerOptions): Promise<WranglerDev> {
  // The /docs and /dashboard pages' libraries are static assets copied from node_modules (git-ignored): see dev/docs-assets.ts.
  copyBrowserAssets();
  // A port found free can be taken before wrangler binds it (by another server, or as the local
  // port of an outgoing connection): with a port of our own choosing, try another one. The attempts
  // share one ready deadline, so a caller's bound (a suite's hook) covers them all.
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, opts.port || (await freePort()), deadline);
    } catch (err) {
      if (opts.port || attempt >= 3 || !/Address already in use/.test(String(err))) throw err;
    }
  }
}

async function startOnce(opts: WranglerOptions, port: number, deadline: number): Promise<WranglerDev> {
  const inspectorPort = await freePort();
  const args = [
    WRANGLER,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--show-interactive-dev-session=false",
    "--test-scheduled",
    "--log-level",
    process.env.WRANGLER_LOG ?? "warn",
  ] /* wrangler's own variable: WRANGLER_LOG=log shows the Worker's console.log */;
  // Admit's Worker runs with the pages Worker beside it in the same workerd (its PAGES binding:
  // /docs, /dashboard); the first config is the one on the port.
  if (opts.config) for (const c of [opts.config].flat()) args.push("--config", c);
  else args.push("--config", "wrangler.toml", "--config", PAGES_CONFIG);
  for (const [k, v] of Object.entries(opts.vars)) args.push("--var", `${k}:${v}`);
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true, // its own process group, so stop() takes workerd down with it
    stdio: ["ignore", "pipe", "pipe"],
    // CLOUDFLARE_CF_FETCH_ENABLED=false: Miniflare uses its built-in Request.cf instead of fetching
    // workers.cloudflare.com/cf.json — there is no internet locally, and a stalled lookup on a fresh
    // clone (no cached cf.json) must not hold up the Worker's start.
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      NO_UPDATE_NOTIFIER: "1",
      CI: "true",
      FORCE_COLOR: "0",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // A Worker importing a workspace package (examples/gateway: @admit/hono) is bundled from the
      // package's TypeScript source, as vitest and tsc see it, never from a dist/ built earlier.
      WRANGLER_BUILD_CONDITIONS: "admit-source,workerd,worker,browser",
      ...(opts.devtools ? {} : { VSCODE_INSPECTOR_OPTIONS: "{}" }),
      ...opts.env,
    },
  });
  // Its own process group outlives us unless someone kills it: the guard does, if we die first.
  const release = child.pid !== undefined ? guardProcessGroup(child.pid) : () => {};
  const output: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 200) output.shift();
      opts.log?.(line);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  // Exited on its own (a crash): the guard has nothing left to kill once the group is empty.
  child.once("exit", () => {
    if (!(listProcesses() ?? []).some((p) => p.pgrp === child.pid)) release();
  });

  const stop = async () => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 5_000);
    await exit;
    clearTimeout(killer);
    // wrangler gone but a workerd of its group still there (it ignored SIGTERM): no orphans.
    if ((listProcesses() ?? []).some((p) => p.pgrp === child.pid)) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    release();
  };

  const url = `http://127.0.0.1:${port}`;
  const readyMs = opts.readyTimeoutMs ?? 60_000;
  // Every wait in ready() is bounded by the deadline. Should one still not return (a fetch whose
  // timeout never fires, a process that never exits), the watchdog gives up 30 s after the deadline,
  // naming the step, with wrangler's output, and takes the process group down: no caller waits unbounded.
  let step = "waiting for / to answer";
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    watchdog = setTimeout(
      () => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
        release();
        reject(new Error(`wrangler dev's start stalled ${step} on ${url}, 30 s past its ${readyMs} ms ready deadline. Its output:\n${output.join("\n")}`));
      },
      Math.max(0, deadline - Date.now()) + 30_000,
    );
  });
  try {
    return await Promise.race([ready(), stalled]);
  } finally {
    clearTimeout(watchdog);
  }

  async function ready(): Promise<WranglerDev> {
    let root: string; // what "/" answered once ready: how the Worker's own socket is recognised
    while (true) {
      if (exited) throw new Error(`wrangler dev exited before it was ready:\n${output.join("\n")}`);
      // A port taken before wrangler bound it: workerd says so and keeps running; give up at once so
      // the caller can try another port instead of waiting out the whole ready timeout.
      if (output.some((l) => /Address already in use/.test(l))) {
        const holder = describePortHolders(port);
        step = "stopping it after a taken port";
        await stop();
        throw new Error(`wrangler dev could not bind ${url}: Address already in use — ${holder}`);
      }
      const got = await probe(url + "/");
      if (got?.status === 200) {
        root = got.text;
        break;
      }
      if (Date.now() > deadline) {
        step = "stopping it after its ready deadline";
        await stop();
        throw new Error(`wrangler dev did not answer on ${url} within ${readyMs} ms. Its output:\n${output.join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    // Not found: null, and the caller goes through the proxy (ownSocket). On Linux it is always there to
    // find, so it is looked for until the ready deadline, then the start fails, naming what changed.
    let directUrl: string | null = null;
    step = "looking for the Worker's own socket";
    while (opts.direct && (directUrl = await findUserWorker(child.pid!, port, root)) === null && process.platform === "linux") {
      if (Date.now() > deadline) {
        step = "stopping it after its ready deadline";
        await stop();
        throw new Error(
          `wrangler dev answers on ${url} but its Worker's own workerd socket was not found in /proc (dev/wrangler.ts findUserWorker): has wrangler changed how it runs the Worker?`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return { url, port, directUrl, pgid: child.pid!, inspectorPort, stop };
  }
}

/**
 * Where to send a Worker its requests: its own workerd socket (found with `direct: true`), past
 * wrangler's dev proxy, which a deployed Worker does not have; the proxy only where that socket was
 * not found (no /proc). Every proxied request is a second HTTP hop in a second workerd, and the proxy
 * pools its connections to the Worker and reuses one the runtime has just closed after 5 s idle: a
 * POST it sends on it comes back 503 "Your worker restarted mid-request" without reaching the Worker
 * (its text for any network error on the way; it retries only GET and HEAD). Seen in a clean-clone
 * CI run (2026-11-27, 1 of 30 simultaneous bookings through the gateway example); reproduced by
 * sending 30 POSTs 4.95 s after the previous request: 11 such 503s through the proxy, none on the
 * Worker's own socket at any idle time from 4.9 to 5.1 s.
 */
export function ownSocket(worker: Pick<WranglerDev, "url" | "directUrl">): string {
  return worker.directUrl ?? worker.url;
}

/**
 * The user Worker's socket, from /proc: the listening TCP ports of the workerd processes in wrangler's
 * process group other than the proxy's port, the one whose "/" answers what the proxy's "/" answered.
 */
async function findUserWorker(pgid: number, proxyPort: number, expected: string): Promise<string | null> {
  const workerds = (listProcesses() ?? []).filter((p) => p.comm === "workerd" && p.pgrp === pgid).map((p) => p.pid);
  const ports = listeningPorts(workerds);
  if (!ports) return null; // no /proc
  ports.delete(proxyPort);
  for (const p of ports) {
    const candidate = `http://127.0.0.1:${p}`;
    const got = await probe(candidate + "/"); // null: the inspector or debug port
    if (got?.status === 200 && got.text === expected) return candidate;
  }
  return null;
}

/**
 * GET `url`: its status and body, or null when it failed or took over a second. The second is a
 * timer of its own, not only the request's abort signal, so a probe of a workerd that is still
 * starting returns within it whatever the request does, and the ready loop checks its deadline on
 * time. A request left hanging is abandoned, its socket with it.
 */
async function probe(url: string): Promise<{ status: number; text: string } | null> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(null);
    }, 1_000);
  });
  const asked = (async () => {
    const res = await fetch(url, { signal: abort.signal });
    return { status: res.status, text: await res.text() };
  })().catch(() => null);
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}
