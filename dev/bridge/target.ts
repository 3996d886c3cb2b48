// Where a connection may go: a literal loopback address and port, named in the URL shape of Neon's
// wsproxy (`/v1?address=host:port`). Anything else is refused before a byte reaches Postgres.
import net from "node:net";

export interface Target {
  host: string;
  port: number;
}

export interface Refusal {
  status: 400 | 403 | 404 | 503;
  message: string;
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

export function parseTarget(url: string | undefined): Target | Refusal {
  const u = new URL(url ?? "/", "http://bridge");
  if (u.pathname !== "/v1" && u.pathname !== "/v2") return { status: 404, message: `unknown path ${u.pathname}` };
  const address = u.searchParams.get("address");
  const m = address ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address) : null;
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) return { status: 400, message: `missing or invalid address "${address ?? ""}"` };
  const name = (m[1] ?? m[2] ?? "").toLowerCase();
  // Only literal loopback addresses: names are never resolved, so DNS cannot redirect us.
  if (name === "localhost") return { host: "127.0.0.1", port };
  const family = net.isIPv4(name) ? "ipv4" : net.isIPv6(name) ? "ipv6" : undefined;
  if (family && LOOPBACK.check(name, family)) return { host: name, port };
  return { status: 403, message: `target ${address} is not a loopback address` };
}
