// The optional pooled profile: PgBouncer (Debian's `pgbouncer`) in transaction mode between the
// clients and Postgres, as Neon's pooled endpoint is. Used when installed; the bench says so.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chown, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../dev/local";
import { firstRunnable, onPath } from "./pgbench";

const run = promisify(execFile);

export const PGBOUNCER_INSTALL = "apt-get update && apt-get install -y pgbouncer";

export interface PgbouncerBin {
  path: string;
  version: string;
}

export function findPgbouncer(): Promise<PgbouncerBin | null> {
  return firstRunnable([process.env.PGBOUNCER, ...onPath("pgbouncer"), "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]);
}

export interface PgbouncerTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface Pgbouncer {
  host: string;
  port: number;
  /** The same database as `target`, reached through PgBouncer. */
  url: string;
  stop(): Promise<void>;
}

/** The config: transaction pooling, cleartext auth towards clients (the Neon driver pipelines a cleartext password). */
export function pgbouncerIni(t: PgbouncerTarget, port: number, dir: string, poolSize: number): string {
  return [
    "[databases]",
    `${t.database} = host=${t.host} port=${t.port} dbname=${t.database}`,
    "",
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = plain",
    `auth_file = ${join(dir, "userlist.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${poolSize}`,
    "max_client_conn = 2000",
    "ignore_startup_parameters = extra_float_digits,options",
    `logfile = ${join(dir, "pgbouncer.log")}`,
    `pidfile = ${join(dir, "pgbouncer.pid")}`,
    "log_connections = 0",
    "log_disconnections = 0",
    "",
  ].join("\n");
}

export async function startPgbouncer(bin: PgbouncerBin, target: PgbouncerTarget, poolSize = 20): Promise<Pgbouncer> {
  const dir = await mkdtemp(join(tmpdir(), "admit-pgbouncer-"));
  const port = await freePort();
  await writeFile(join(dir, "pgbouncer.ini"), pgbouncerIni(target, port, dir, poolSize));
  await writeFile(join(dir, "userlist.txt"), `"${target.user}" "${target.password}"\n`);
  // PgBouncer refuses to run as root: as root it drops to the "postgres" user (-u), which must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    for (const f of [dir, join(dir, "pgbouncer.ini"), join(dir, "userlist.txt")]) await chown(f, uid, gid);
  }
  const args = [...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")];
  const child: ChildProcess = spawn(bin.path, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) {
      child.kill("SIGINT");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exit;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  // Ready when the port accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) {
      const log = await readFile(join(dir, "pgbouncer.log"), "utf8").catch(() => "");
      await stop();
      throw new Error(`pgbouncer exited: ${(output + log).trim().split("\n").slice(-5).join(" | ")}`);
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error("pgbouncer did not listen within 10 s");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `postgres://${target.user}:${encodeURIComponent(target.password)}@127.0.0.1:${port}/${target.database}`;
  return { host: "127.0.0.1", port, url, stop };
}

async function canConnect(port: number): Promise<boolean> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
