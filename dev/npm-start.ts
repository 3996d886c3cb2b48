// `npm start` as a fresh stack, for what drives one from outside (dev/examples.ts, the lifecycle
// tests): distinct free ports, a throwaway data dir, and npm in a process group of its own.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, ROOT } from "./local";

/** The ports `npm start` binds: the Worker's (PORT), Postgres' (PGPORT) and the bridge's (BRIDGE_PORT). */
export interface StartPorts {
  port: number;
  pgport: number;
  bridgePort: number;
}

/** `n` different loopback ports, each free right now (freePort). */
export async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** Three distinct free ports for one `npm start`. */
export async function freeStartPorts(): Promise<StartPorts> {
  const [port, pgport, bridgePort] = await distinctFreePorts(3);
  return { port, pgport, bridgePort };
}

/** A new empty directory under the system temp dir, for ADMIT_DATA_DIR; the caller removes it. */
export function throwawayDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755); // as root, Postgres runs as "postgres" and must enter it
  return dir;
}

/**
 * `npm start` on `ports` and ADMIT_DATA_DIR `dataDir`, detached (a process group of its own, as from
 * a shell), stdout and stderr piped. None of the caller's DATABASE_URL, API_TOKEN, NEON_WS_PROXY or
 * ADMIT_URL is passed on, so it starts its own Postgres and makes its own token; `env` adds to that.
 * Nothing guards the group: the caller stops it (or hands it to guardProcessGroup).
 */
export function spawnNpmStart(ports: StartPorts, dataDir: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const full: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.port),
    PGPORT: String(ports.pgport),
    BRIDGE_PORT: String(ports.bridgePort),
    ADMIT_DATA_DIR: dataDir,
  };
  for (const k of ["DATABASE_URL", "API_TOKEN", "NEON_WS_PROXY", "ADMIT_URL"]) delete full[k];
  return spawn("npm", ["start"], { cwd: ROOT, env: { ...full, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
}
