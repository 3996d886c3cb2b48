// `npm start`: embedded Postgres (data in .data/postgres, or under ADMIT_DATA_DIR, kept across
// restarts) → migrations → WebSocket bridge → the Worker in `wrangler dev` on PORT (default 8787).
// Ctrl-C stops it all, and so does any kill of `npm start`: a SIGKILL of npm is noticed here
// (watchAncestors) and this process stops everything; if this process itself is killed, the guard
// (dev/guard.mjs) stops wrangler and Postgres.
// With DATABASE_URL set, that Postgres is used instead of the embedded one.
import "./node-ws";
import { join } from "node:path";
import { isLoopbackUrl, migrate } from "../tools/migrate";
import { BRIDGE_DEFAULTS, type Bridge, startBridge } from "./bridge";
import { watchAncestors } from "./lifeline";
import { canBind, DATA_DIR, devToken } from "./local";
import { type PgHandle, startPostgres } from "./postgres";
import { describePortHolders } from "./proc";
import { startWranglerDev, type WranglerDev } from "./wrangler";

const say = (line: string) => console.log(`[admit] ${line}`);

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name}=${raw} is not a port number (0–65535).`);
  return n;
}

/** A whole number from the environment within [min, max], or the fallback when unset. */
function count(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}=${raw}: expected a whole number from ${min} to ${max}.`);
  return n;
}

/** A fixed port already taken fails the start at once, naming the process that holds it and how to stop it. */
async function checkFree(name: string, value: number): Promise<void> {
  if (value === 0 || (await canBind(value))) return;
  throw new Error(`${describePortHolders(value)}; or set ${name} to another port`);
}

/** wrangler's own lines (it no longer tries to fetch Request.cf offline: see dev/wrangler.ts). */
function wranglerLine(line: string): void {
  console.log(`[wrangler] ${line}`);
}

async function main(): Promise<void> {
  let pg: PgHandle | undefined;
  let bridge: Bridge | undefined;
  let worker: WranglerDev | undefined;
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping…");
    await worker?.stop().catch(() => {});
    await bridge?.close().catch(() => {});
    await pg?.stop().catch(() => {});
    say("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  process.on("SIGHUP", () => void shutdown(0)); // the terminal closed
  // npm killed: nobody would ever send us a signal again.
  watchAncestors((why) => {
    say(`${why}: stopping`);
    void shutdown(1);
  });
  // Whoever read our output may be gone (EPIPE): the shutdown must go on regardless.
  process.stdout.on("error", () => {});
  process.stderr.on("error", () => {});

  try {
    const workerPort = port("PORT", 8787);
    let databaseUrl = process.env.DATABASE_URL;
    await checkFree("PORT", workerPort);
    if (!databaseUrl) await checkFree("PGPORT", port("PGPORT", 0));
    if (!databaseUrl || isLoopbackUrl(databaseUrl)) await checkFree("BRIDGE_PORT", port("BRIDGE_PORT", 0));
    if (databaseUrl) {
      say(`using DATABASE_URL (${new URL(databaseUrl).host})`);
    } else {
      pg = await startPostgres({ dataDir: join(DATA_DIR, "postgres"), port: port("PGPORT", 0), persistent: true, log: say });
      databaseUrl = pg.url;
    }
    let wsProxy: string | undefined;
    if (isLoopbackUrl(databaseUrl)) {
      bridge = await startBridge({
        port: port("BRIDGE_PORT", 0),
        poolSize: count("BRIDGE_POOL_SIZE", BRIDGE_DEFAULTS.poolSize, 1, 200),
        maxSessions: count("BRIDGE_MAX_SESSIONS", BRIDGE_DEFAULTS.maxSessions, 1, 1000),
        queueMs: count("BRIDGE_QUEUE_MS", BRIDGE_DEFAULTS.queueMs, 1, 60_000),
      });
      wsProxy = bridge.wsProxy;
      say(
        `bridge (Neon's proxy, locally) on ${bridge.host}:${bridge.port}: HTTP SQL at /sql over a pool of ${bridge.poolSize} connections, WebSocket at /v1 for at most ${bridge.maxSessions} sessions; ${bridge.queueMs} ms in the queue at most, loopback targets only`,
      );
    }
    const { applied } = await migrate({ databaseUrl, wsProxy, log: say });
    say(applied.length ? `applied ${applied.length} migration(s)` : "schema up to date");

    const token = devToken({ create: true })!;
    say("starting the Worker in wrangler dev…");
    const vars: Record<string, string> = { DATABASE_URL: databaseUrl, API_TOKEN: token };
    if (wsProxy) vars.NEON_WS_PROXY = wsProxy;
    // ADMIT_DEVTOOLS=1: wrangler's devtools inspector, for attaching Chrome DevTools; off by default,
    // since under a burst it is what overloads wrangler (see `devtools` in dev/wrangler.ts).
    worker = await startWranglerDev({ port: workerPort, vars, log: wranglerLine, devtools: process.env.ADMIT_DEVTOOLS === "1", direct: true });

    console.log(`
  Admit is running.

    URL        ${worker.url}
    API token  ${token}
    Docs       ${worker.url}/docs${
      worker.directUrl
        ? `
    Load tests ${worker.directUrl}  (the Worker's own socket, past wrangler's dev proxy, which a
               deployed Worker does not have: under bursts the proxy can answer a POST 503
               "Your worker restarted mid-request" without it reaching Admit)`
        : ""
    }

  Try:
    curl -s ${worker.url}/health
    curl -s -X POST ${worker.url}/v1/reservations \\
      -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" \\
      -d '{"resource":"223/345","holder":"me","start":"2021-01-01T14:45:00Z","end":"2021-01-04T14:45:00Z"}'
    npm run demo        # the reservation race: 10 simultaneous identical reservations

  Ctrl-C (or any kill of npm start) stops everything.
`);
  } catch (err) {
    console.error(`[admit] could not start: ${(err as Error).message}`);
    await shutdown(1);
  }
}

void main();
