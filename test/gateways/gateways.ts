// The gateway suite's parts: Debian's nginx, Caddy and HAProxy started on loopback ports with the
// configs of examples/gateways/ (rendered from their placeholders, nothing else changed); a test CA
// (openssl) and Debian's HAProxy as the TLS front a deployed Worker has (Cloudflare's edge): it
// answers only for its host name (SNI and Host), with a certificate of the test CA or, on a second
// port, of a CA nobody trusts; a relay in front of Admit that can fall silent or stop (Admit hung
// or down); and a small upstream that counts what reaches it.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { binary, EXAMPLES, freePort, nginxMainConf, render } from "../../dev/gateways";

export { binary, version } from "../../dev/gateways";

/** The name Admit answers at behind the TLS front: not an address, and resolved by no one (the configs connect to ADMIT_ADDR). */
export const ADMIT_HOST = "admit.test";

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

/**
 * A TCP relay on a loopback port to Admit (`target`): passing, silent (connections accepted, every
 * byte sent to Admit dropped, on connections already open too: a hung Admit), or stopped (nothing
 * listens: refused). `received` is what arrived while silent, to count the checks sent there.
 */
export interface Relay {
  port: number;
  mode: "pass" | "silent";
  received: string;
  /** Connections accepted since it was made. */
  accepted: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const relay: Relay = {
    port: await freePort(),
    mode: "pass",
    received: "",
    accepted: 0,
    async start() {
      server = net.createServer((client) => {
        relay.accepted++;
        const admit = net.connect(target.port, target.host);
        for (const s of [client, admit]) {
          sockets.add(s);
          s.on("error", () => {});
          s.on("close", () => {
            sockets.delete(s);
            client.destroy();
            admit.destroy();
          });
        }
        client.on("data", (d) => {
          if (relay.mode === "silent") relay.received += d.toString("latin1");
          else admit.write(d);
        });
        admit.pipe(client);
      });
      await new Promise<void>((r) => server!.listen(relay.port, "127.0.0.1", r));
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      server = undefined;
    },
  };
  await relay.start();
  return relay;
}

/** The test CA: `ca` signs `trusted` (for ADMIT_HOST); `untrusted` is ADMIT_HOST's too, signed by a CA no gateway trusts. */
export interface TestCa {
  dir: string;
  ca: string;
  trusted: string;
  untrusted: string;
}

export function makeTestCa(): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admit-gw-ca-"));
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  fs.writeFileSync(path.join(dir, "ext.cnf"), `subjectAltName=DNS:${ADMIT_HOST}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  for (const ca of ["ca", "other"]) {
    ssl("req", "-x509", ...ec, "-keyout", `${ca}.key`, "-out", `${ca}.pem`, "-days", "2", "-subj", `/CN=Admit gateway suite ${ca}`);
    ssl("req", ...ec, "-keyout", `${ca}-host.key`, "-out", `${ca}-host.csr`, "-subj", `/CN=${ADMIT_HOST}`);
    ssl(
      "x509",
      "-req",
      "-in",
      `${ca}-host.csr`,
      "-CA",
      `${ca}.pem`,
      "-CAkey",
      `${ca}.key`,
      "-CAcreateserial",
      "-out",
      `${ca}-host.pem`,
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
    );
    const pem = fs.readFileSync(path.join(dir, `${ca}-host.pem`), "utf8") + fs.readFileSync(path.join(dir, `${ca}-host.key`), "utf8");
    fs.writeFileSync(path.join(dir, `${ca}-host.combined.pem`), pem);
  }
  return { dir, ca: path.join(dir, "ca.pem"), trusted: path.join(dir, "ca-host.combined.pem"), untrusted: path.join(dir, "other-host.combined.pem") };
}

/** A process of the suite's, its output kept (the last 20 000 characters). */
interface Proc {
  child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, extraLog: () => string = () => ""): Proc {
  let output = "";
  const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => void (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => void (output = (output + d).slice(-20_000)));
  return {
    child,
    log: () => output + extraLog(),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    },
  };
}

async function waitListening(port: number, p: Proc, name: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (p.child.exitCode !== null) throw new Error(`${name} exited with ${p.child.exitCode}:\n${p.log()}`);
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
  throw new Error(`${name} did not listen on ${port} within 20 s:\n${p.log()}`);
}

/** One request as the TLS front logged it: which port (`trusted`/`untrusted`), the SNI and Host it got, whether it carried Authorization, its status. */
export interface FrontRequest {
  bind: string;
  /** The gateway's source port: requests on one connection share it. */
  clientPort: number;
  sni: string;
  host: string;
  auth: boolean;
  status: number;
  line: string;
}

export interface TlsFront {
  /** Its port with the test CA's certificate, and the one with the untrusted certificate. */
  trustedPort: number;
  untrustedPort: number;
  /** The requests it received (a connection closed without one is not a request). */
  requests(): FrontRequest[];
  /**
   * Connections to the untrusted port that ended without a request: a handshake failure, or closed
   * by the client right after the server's part of the handshake (TLS 1.3, HAProxy logs <BADREQ>).
   */
  refusedConnections(): number;
  log(): string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Debian's HAProxy terminating TLS for ADMIT_HOST in front of `backend` (Admit, or the relay to it),
 * as Cloudflare's edge does for a Worker: a request without SNI and Host ADMIT_HOST gets 421 and
 * never reaches Admit.
 */
export async function startTlsFront(ca: TestCa, backend: number): Promise<TlsFront> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admit-gw-front-"));
  const [trustedPort, untrustedPort] = [await freePort(), await freePort()];
  fs.writeFileSync(
    path.join(dir, "front.cfg"),
    [
      "global",
      "    log stdout format raw local0 info",
      "defaults",
      "    mode http",
      "    log global",
      "    timeout connect 5s",
      "    timeout client 120s",
      "    timeout server 120s",
      "frontend admit_front",
      `    bind 127.0.0.1:${trustedPort} ssl crt ${ca.trusted} alpn http/1.1 name trusted`,
      `    bind 127.0.0.1:${untrustedPort} ssl crt ${ca.untrusted} alpn http/1.1 name untrusted`,
      "    http-request capture req.hdr(host) len 200",
      "    http-request capture req.fhdr(authorization),length len 10",
      '    log-format "front %[so_name] cp=%cp sni=%[ssl_fc_sni] host=%[capture.req.hdr(0)] auth=%[capture.req.hdr(1)] status=%ST %r"',
      `    http-request return status 421 content-type text/plain string "not ${ADMIT_HOST}" unless { ssl_fc_sni -i ${ADMIT_HOST} } { req.hdr(host),field(1,:) -i ${ADMIT_HOST} }`,
      "    default_backend admit",
      "backend admit",
      // A connection of its own to Admit per request: one a gateway gave up on (Admit silent) is
      // never handed to the next request, so each test sees only what the gateway does.
      "    http-reuse never",
      `    server admit 127.0.0.1:${backend}`,
      "",
    ].join("\n"),
  );
  let proc: Proc | undefined;
  let before = "";
  const entries = (): FrontRequest[] =>
    [...front.log().matchAll(/^front (\S+) cp=(\d+) sni=(\S*) host=(\S*) auth=(\S*) status=(\d+) (.*)$/gm)].map((m) => ({
      bind: m[1],
      clientPort: Number(m[2]),
      sni: m[3],
      host: m[4],
      auth: m[5] !== "-" && m[5] !== "",
      status: Number(m[6]),
      line: m[7],
    }));
  const front: TlsFront = {
    trustedPort,
    untrustedPort,
    log: () => before + (proc?.log() ?? ""),
    requests: () => entries().filter((r) => r.line !== "<BADREQ>"),
    refusedConnections: () =>
      [...front.log().matchAll(/admit_front\/untrusted: SSL handshake failure/g)].length +
      entries().filter((r) => r.bind === "untrusted" && r.line === "<BADREQ>" && !r.auth && r.host === "-").length,
    async start() {
      proc = run(binary("haproxy"), ["-db", "-f", path.join(dir, "front.cfg")], { PATH: process.env.PATH }, dir);
      await waitListening(trustedPort, proc, "the TLS front (haproxy)");
    },
    async stop() {
      before += proc?.log() ?? "";
      await proc?.stop();
      proc = undefined;
    },
  };
  await front.start();
  return front;
}

export interface Gateway {
  name: "nginx" | "caddy" | "haproxy";
  url: string;
  stop(): Promise<void>;
  log(): string;
}

/** Where Admit, the gateway's key and the upstream are: the placeholders of examples/gateways/. */
export interface Wiring {
  scheme: "https" | "http";
  /** host:port to connect to. */
  admitAddr: string;
  /** SNI, certificate name and Host. */
  admitHost: string;
  ca: string;
  token: string;
  upstreamAddr: string;
  /** The gateway's own timeout for the check (ADMIT_TIMEOUT / ADMIT_TIMEOUT_MS of the examples). */
  timeoutMs: number;
}

/** Starts `name` with its example config on a free loopback port, in a temporary directory of its own. */
export async function startGateway(name: Gateway["name"], w: Wiring): Promise<Gateway> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `admit-gw-${name}-`));
  fs.chmodSync(dir, 0o777); // nginx's workers run as nobody and write their temp files here
  const port = await freePort();
  const vars = {
    LISTEN: `127.0.0.1:${port}`,
    UPSTREAM_ADDR: w.upstreamAddr,
    ADMIT_SCHEME: w.scheme,
    ADMIT_ADDR: w.admitAddr,
    ADMIT_HOST: w.admitHost,
    ADMIT_CA: w.ca,
    ADMIT_TOKEN: w.token,
    ADMIT_TIMEOUT: `${w.timeoutMs}ms`,
  };
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
    // LISTEN is a port only; the address is the Caddyfile's default, loopback.
    env = { ...env, ...vars, LISTEN: String(port), XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  } else {
    cmd = binary("haproxy");
    args = ["-db", "-f", path.join(EXAMPLES, "haproxy.cfg")];
    env = { ...env, ...vars, ADMIT_LUA: path.join(EXAMPLES, "admit.lua"), ADMIT_TIMEOUT_MS: String(w.timeoutMs), ADMIT_HOP: `abns@admit-check-${port}` };
  }
  const errorLog = () =>
    name === "nginx" && fs.existsSync(path.join(dir, "error.log")) ? fs.readFileSync(path.join(dir, "error.log"), "utf8").slice(-5000) : "";
  const proc = run(cmd, args, env, dir, errorLog);
  await waitListening(port, proc, name);
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    log: proc.log,
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The local addresses listening on TCP `port`, from /proc/net/tcp and tcp6 (IPv4 dotted; IPv6 as its hex). */
export function listenAddresses(port: number): string[] {
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== "0A" || !local) continue; // LISTEN
      const [addr, p] = local.split(":");
      if (Number.parseInt(p, 16) !== port) continue;
      out.push(
        addr.length === 8
          ? (addr.match(/../g) ?? [])
              .map((b) => Number.parseInt(b, 16))
              .reverse()
              .join(".")
          : `v6:${addr}`,
      );
    }
  }
  return out;
}
