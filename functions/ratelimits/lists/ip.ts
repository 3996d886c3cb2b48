// IP addresses and networks for the deny/allow lists, in memory: an address is 4 (IPv4) or 16 (IPv6)
// bytes; a network is an address and a prefix length. An IPv4-mapped IPv6 address (::ffff:192.0.2.7)
// is its IPv4 address, as a dual-stack socket reports an IPv4 client. Postgres stores the same
// networks as `cidr` (schema/current/ratelimits.sql); test/ratelimits/ratelimits.lists.test.ts checks
// contains() against Postgres's own `inet <<= cidr` on thousands of pairs.

export interface Network {
  bytes: Uint8Array;
  bits: number;
}

function ipv4(s: string): Uint8Array | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return null;
    const n = Number(parts[i]);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

function ipv6(s: string): Uint8Array | null {
  let head = s;
  let v4: Uint8Array | null = null;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".", lastColon)) {
    v4 = ipv4(s.slice(lastColon + 1));
    if (!v4) return null;
    head = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const group = (g: string) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : -1);
  const left = halves[0] === "" ? [] : halves[0].split(":").map(group);
  const right = halves.length === 2 ? (halves[1] === "" ? [] : halves[1].split(":").map(group)) : [];
  if (left.includes(-1) || right.includes(-1)) return null;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  if (v4) out.set(v4, 12);
  return out;
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** The bytes of an IPv4 or IPv6 address (brackets and an IPv6 zone allowed), or null when it is not one. */
export function parseAddress(raw: string): Uint8Array | null {
  const s = raw.trim().replace(/^\[(.*)\]$/, "$1");
  if (s.includes(":")) {
    const b = ipv6(s.replace(/%[^%]*$/, ""));
    if (b && MAPPED_PREFIX.every((v, i) => b[i] === v)) return b.slice(12);
    return b;
  }
  return ipv4(s);
}

/** An address or `address/bits` as a network (an address alone: all its bits), or null when it is not one. */
export function parseNetwork(raw: string): Network | null {
  const slash = raw.indexOf("/");
  const addr = slash < 0 ? raw : raw.slice(0, slash);
  const s = addr.trim().replace(/^\[(.*)\]$/, "$1");
  // A mapped IPv6 network stays IPv6 here (its prefix counts the 96 leading bits): only addresses fold to IPv4.
  const bytes = s.includes(":") ? ipv6(s) : ipv4(s);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (slash < 0) return { bytes, bits: max };
  const tail = raw.slice(slash + 1);
  if (!/^\d{1,3}$/.test(tail) || Number(tail) > max) return null;
  return { bytes, bits: Number(tail) };
}

/** Whether `address` (parseAddress) lies in `net`: same family, the first `net.bits` bits equal. */
export function contains(net: Network, address: Uint8Array): boolean {
  let bytes = net.bytes;
  let bits = net.bits;
  // A network written as ::ffff:a.b.c.d/n (n ≥ 96) covers the IPv4 addresses its last bits name.
  if (bytes.length === 16 && address.length === 4 && bits >= 96 && MAPPED_PREFIX.every((v, i) => bytes[i] === v)) {
    bytes = bytes.slice(12);
    bits -= 96;
  }
  if (bytes.length !== address.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== address[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole] & mask) === (address[whole] & mask);
}
