// The real gateways of examples/gateways/ on this machine: Debian's binaries, their configs rendered
// from their placeholders. Shared by the gateway suite (test/gateways/) and `npm run bench:gateway`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ROOT } from "./local";

export const EXAMPLES = path.join(ROOT, "examples", "gateways");

/** A free loopback port (bound and released). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * The binary of a gateway, or a thrown error saying how to install it: a missing gateway fails the
 * suite, it is never skipped.
 */
export function binary(name: "nginx" | "caddy" | "haproxy"): string {
  for (const dir of ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(
    `${name} is not installed: the gateway suite runs the real one. Install Debian's: apt-get install -y nginx caddy haproxy (.ci/run does when they are missing).`,
  );
}

/** The version line a gateway prints (for the suite's log; nginx prints it on stderr). */
export function version(name: "nginx" | "caddy" | "haproxy"): string {
  const r = spawnSync(binary(name), name === "caddy" ? ["version"] : ["-v"], { encoding: "utf8" });
  return `${name} ${`${r.stdout ?? ""}${r.stderr ?? ""}`.split("\n")[0].trim()}`;
}

/** `text` with each `${NAME}` (nginx's envsubst form) replaced from `vars`; a placeholder left over is an error. */
export function render(text: string, vars: Record<string, string>): string {
  const out = text.replace(/\$\{([A-Z_]+)\}/g, (m, name: string) => vars[name] ?? m);
  const left = out.match(/\$\{[A-Z_]+\}/);
  if (left) throw new Error(`placeholder ${left[0]} has no value`);
  return out;
}

/** nginx's main context around server blocks in `dir` (what /etc/nginx/nginx.conf is in Debian), every path in `dir`. */
export function nginxMainConf(dir: string, includes: string[]): string {
  return [
    "daemon off;",
    "worker_processes 1;",
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    "events { worker_connections 4096; }",
    "http {",
    "  access_log off;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${dir}/${t};`),
    ...includes.map((f) => `  include ${dir}/${f};`),
    "}",
  ].join("\n");
}
