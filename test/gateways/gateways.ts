// The gateway suite's parts: Debian's nginx, Caddy and HAProxy started on loopback ports with the
// configs of examples/gateways/ (rendered from their placeholders, nothing else changed), a small
// upstream that counts what reaches it, and a TCP listener that never answers (Admit "silent").
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { binary, EXAMPLES, freePort, nginxMainConf, render } from "../../dev/gateways";

export { binary, version } from "../../dev/gateways";

export interface Upstream {
  url: string;
  port: number;
  hits: number;
  /** Every request's headers as the upstream received them. */
  seen: http.IncomingHttpHeaders[];
  reset(): void;
  close(): Promise<void>;
}

/** A small API behind the gateway: counts the requests that reach it and keeps their headers. */
export async function startUpstream(): Promise<Upstream> {
  const u = {
    hits: 0,
    seen: [] as http.IncomingHttpHeaders[],
    reset() {
      u.hits = 0;
      u.seen = [];
    },
  };
  const server = http.createServer((req, res) => {
    u.hits++;
    u.seen.push(req.headers);
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(u, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

/** A listener on `port` that accepts connections and never answers: Admit hung. */
export async function silentListener(port: number): Promise<{ accepted: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface Gateway {
  name: "nginx" | "caddy" | "haproxy";
  url: string;
  stop(): Promise<void>;
  log(): string;
}

/** Where Admit, the gateway's key and the upstream are. */
export interface Wiring {
  admitAddr: string;
  token: string;
  upstreamAddr: string;
  /** The gateway's own timeout for the check (ADMIT_TIMEOUT / ADMIT_TIMEOUT_MS of the examples). */
  timeoutMs: number;
}

async function waitListening(port: number, child: ChildProcess, log: () => string, name: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not listen on ${port} within 20 s:\n${log()}`);
}

/** Starts `name` with its example config on a free loopback port, in a temporary directory of its own. */
export async function startGateway(name: Gateway["name"], w: Wiring): Promise<Gateway> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `admit-gw-${name}-`));
  fs.chmodSync(dir, 0o777); // nginx's workers run as nobody and write their temp files here
  const port = await freePort();
  const vars = { LISTEN: `127.0.0.1:${port}`, ADMIT_ADDR: w.admitAddr, ADMIT_TOKEN: w.token, UPSTREAM_ADDR: w.upstreamAddr, ADMIT_TIMEOUT: `${w.timeoutMs}ms` };
  let cmd: string;
  let args: string[];
  let env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir };
  if (name === "nginx") {
    fs.writeFileSync(path.join(dir, "api.conf"), render(fs.readFileSync(path.join(EXAMPLES, "nginx.conf"), "utf8"), vars));
    fs.writeFileSync(path.join(dir, "nginx.conf"), nginxMainConf(dir, ["api.conf"]));
    cmd = binary("nginx");
    args = ["-p", dir, "-c", path.join(dir, "nginx.conf")];
  } else if (name === "caddy") {
    fs.copyFileSync(path.join(EXAMPLES, "Caddyfile"), path.join(dir, "Caddyfile"));
    cmd = binary("caddy");
    args = ["run", "--config", path.join(dir, "Caddyfile"), "--adapter", "caddyfile"];
    env = { ...env, ...vars, LISTEN: String(port), XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  } else {
    cmd = binary("haproxy");
    args = ["-db", "-f", path.join(EXAMPLES, "haproxy.cfg")];
    env = { ...env, ...vars, ADMIT_LUA: path.join(EXAMPLES, "admit.lua"), ADMIT_TIMEOUT_MS: String(w.timeoutMs) };
  }
  let output = "";
  const child = spawn(cmd, args, { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => void (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => void (output = (output + d).slice(-20_000)));
  const log = () =>
    output + (name === "nginx" && fs.existsSync(path.join(dir, "error.log")) ? fs.readFileSync(path.join(dir, "error.log"), "utf8").slice(-5000) : "");
  await waitListening(port, child, log, name);
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
