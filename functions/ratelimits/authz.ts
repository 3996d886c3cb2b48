// /v1/authz: the rate-limit check in the shape API gateways' forward-auth hooks speak (nginx
// auth_request, Caddy forward_auth, Traefik ForwardAuth, HAProxy Lua, Envoy ext_authz HTTP): any
// method, no body, the policy and where the key comes from in the URL the gateway's config fixes,
// the answer in the status (2xx through; the deny status refused) and the RateLimit headers. The
// decision is check() (check.ts): the same statement, deny cache, counts and fail mode as POST
// /v1/ratelimits/check. docs/gateways.md explains each gateway's side.

import type { Context } from "hono";
import type { AppEnv } from "../core/context";
import { type Problem, ProblemError, problem, type ValidationError, validationProblem } from "../core/errors";
import type { RawInput, RouteScope } from "../core/scopes";
import { unstorableText } from "../core/validation";
import { denyCacheFor } from "./cache";
import { check, noPolicy, quotaExceeded } from "./check";
import { COUNTRY_HEADER } from "./lists/answer";

export const AUTHZ_PATH = "/v1/authz";
/**
 * Where the prefix form (`/v1/authz/<the client's own path and query>`, Envoy's `path_prefix`) takes
 * its parameters from: the query string there is the client's, so it is never read.
 */
export const AUTHZ_PARAMS_HEADER = "Admit-Authz";

/**
 * The forward-auth check's scope (docs/api-keys.md): ratelimits:check (which ratelimits:decide
 * includes) on every policy it names — in the query on /v1/authz, in the Admit-Authz header below it. Declared for each documented method
 * (routes.ts) and, as the route answers every method and path below it, for those too (app.ts).
 */
export const AUTHZ_SCOPE: RouteScope = {
  area: "ratelimits",
  access: "check",
  names: Object.assign(
    (_: RawInput, c: Context): string[] => {
      const below = new URL(c.req.url).pathname !== AUTHZ_PATH;
      return new URLSearchParams(below ? (c.req.header(AUTHZ_PARAMS_HEADER) ?? "") : new URL(c.req.url).search).getAll("policy");
    },
    { what: `query policy (below ${AUTHZ_PATH}/: the ${AUTHZ_PARAMS_HEADER} header's)` },
  ),
};
export const MAX_POLICIES = 8;
export const MAX_KEY_SOURCES = 4;
export const MAX_TRUSTED_HOPS = 10;
const MAX_KEY_LENGTH = 500;
const MAX_BODY_BYTES = 64 * 1024;
export const AUTHZ_DENY_STATUSES = [429, 403, 401] as const;
type DenyStatus = (typeof AUTHZ_DENY_STATUSES)[number];
const PARAMS = new Set(["policy", "key", "cost", "deny_status", "on_missing", "trusted_hops"]);
/** An HTTP field name (RFC 9110 token): no CR, LF, space, colon. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const POLICY_NAME = /^[A-Za-z0-9._:-]{1,100}$/;

/** A request to /v1/authz or any path below /v1/authz/. */
export function isForwardAuth(path: string): boolean {
  return path === AUTHZ_PATH || path.startsWith(`${AUTHZ_PATH}/`);
}

export type KeySource = { kind: "ip" } | { kind: "header"; name: string };

export interface AuthzParams {
  policies: string[];
  keys: KeySource[];
  cost: number;
  denyStatus: DenyStatus;
  onMissing: "deny" | "allow";
  trustedHops: number;
}

/** The parameters of a forward-auth check (the gateway's configuration), or the 422 naming each one that is wrong. */
export function authzParams(q: URLSearchParams, where: { in: string; prefix: string }): AuthzParams {
  const errors: ValidationError[] = [];
  const bad = (path: string, message: string) => errors.push({ in: where.in, path: where.prefix + path, message });
  for (const name of new Set(q.keys())) if (!PARAMS.has(name)) bad(name, `unknown parameter (known: ${[...PARAMS].join(", ")})`);
  for (const name of ["cost", "deny_status", "on_missing", "trusted_hops"]) if (q.getAll(name).length > 1) bad(name, "give it at most once");

  const policies = q.getAll("policy");
  if (policies.length === 0) bad("policy", "give 1–8 policies (policy=name, repeated for several: all-or-nothing)");
  if (policies.length > MAX_POLICIES) bad("policy", `at most ${MAX_POLICIES} policies (got ${policies.length})`);
  for (const p of policies) if (!POLICY_NAME.test(p)) bad("policy", `${JSON.stringify(p.slice(0, 120))} is not a policy name (1–100 of A–Z a–z 0–9 . _ : -)`);
  if (new Set(policies).size !== policies.length) bad("policy", "policy names must be distinct");

  const keys: KeySource[] = [];
  const specs = q.getAll("key");
  if (specs.length === 0) bad("key", "give where the limited key comes from: key=ip or key=header:<Name> (repeat for a fallback chain)");
  if (specs.length > MAX_KEY_SOURCES) bad("key", `at most ${MAX_KEY_SOURCES} key sources (got ${specs.length})`);
  for (const spec of specs) {
    if (spec === "ip") keys.push({ kind: "ip" });
    else if (spec.startsWith("header:")) {
      const name = spec.slice("header:".length);
      if (!FIELD_NAME.test(name)) bad("key", `${JSON.stringify(name.slice(0, 120))} is not a header name (an RFC 9110 token: no spaces, CR, LF or colon)`);
      else if (name.toLowerCase() === "authorization")
        bad(
          "key",
          "Authorization carries the gateway's own Admit credential on this route; have the gateway copy the client's header into another one (e.g. X-Client-Authorization) and name that",
        );
      else keys.push({ kind: "header", name });
    } else bad("key", `${JSON.stringify(spec.slice(0, 120))}: expected ip or header:<Name>`);
  }

  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = q.get(name);
    if (raw === null) return def;
    if (!/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      bad(name, `must be a whole number from ${min} to ${max}`);
      return def;
    }
    return Number(raw);
  };
  const cost = int("cost", 1, 0, 1_000_000_000);
  const trustedHops = int("trusted_hops", 0, 0, MAX_TRUSTED_HOPS);
  const denyStatus = int("deny_status", 429, 0, 999) as DenyStatus;
  if (!AUTHZ_DENY_STATUSES.includes(denyStatus)) bad("deny_status", "must be 429, 403 or 401 (nginx's auth_request understands only 401 and 403 as a refusal)");
  const onMissing = q.get("on_missing") ?? "deny";
  if (onMissing !== "deny" && onMissing !== "allow") bad("on_missing", "must be deny or allow");
  if (q.has("trusted_hops") && !keys.some((k) => k.kind === "ip")) bad("trusted_hops", "applies to key=ip only");

  if (errors.length) throw validationProblem(errors.map((e) => `${e.in} ${e.path}: ${e.message}`).join("; "), errors);
  return { policies, keys, cost, denyStatus, onMissing: onMissing as "deny" | "allow", trustedHops };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:]*:[0-9a-f:]*(:(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})?$/;

/** An IP address as a key: IPv4 as it is, IPv6 lower-cased and without brackets; undefined when it is not one. */
function ipKey(raw: string): string | undefined {
  const s = raw
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  if (IPV4.test(s)) return s;
  if (s.length >= 2 && s.length <= 45 && IPV6.test(s)) return s;
  return undefined;
}

/**
 * The client address: the right-most entry of X-Forwarded-For after skipping `trustedHops` entries
 * (0: the address the gateway itself saw and appended; a client can write anything to the left of
 * it, never that entry), else X-Real-IP when there is no X-Forwarded-For. `missing` when there are
 * fewer entries than that, `invalid` when the entry is not an IP address.
 */
export function clientIp(headers: { get(name: string): string | null }, trustedHops: number): { value: string } | { missing: string } | { invalid: string } {
  const xff = headers.get("X-Forwarded-For");
  if (xff !== null) {
    const hops = xff.split(",").map((h) => h.trim());
    const entry = hops[hops.length - 1 - trustedHops];
    if (entry === undefined || entry === "")
      return { missing: `X-Forwarded-For has ${hops.length} entries; trusted_hops=${trustedHops} needs ${trustedHops + 1}` };
    const ip = ipKey(entry);
    return ip ? { value: ip } : { invalid: `X-Forwarded-For entry ${JSON.stringify(entry.slice(0, 60))} is not an IP address` };
  }
  const real = headers.get("X-Real-IP");
  if (real === null || real.trim() === "") return { missing: "no X-Forwarded-For or X-Real-IP (the gateway sets it)" };
  const ip = ipKey(real);
  return ip ? { value: ip } : { invalid: `X-Real-IP ${JSON.stringify(real.slice(0, 60))} is not an IP address` };
}

/**
 * What the deny/allow lists match besides the key: the client address as the `ip` key source reads it
 * (clientIp, with the request's trusted_hops) and the country from CF-IPCountry, each when present and
 * well-formed (a malformed one is left out: it matches no entry).
 */
export function listSubject(headers: { get(name: string): string | null }, trustedHops: number): { ip?: string; country?: string } {
  const out: { ip?: string; country?: string } = {};
  const ip = clientIp(headers, trustedHops);
  if ("value" in ip) out.ip = ip.value;
  const country = headers.get(COUNTRY_HEADER)?.trim();
  if (country && /^[A-Za-z]{2}$/.test(country)) out.country = country.toUpperCase();
  return out;
}

/**
 * A key source's label in a fallback chain: `ip` for the client address, a header's lower-cased name
 * for a header — except a header named `ip`, which would read as the address: `header/ip` ("/" is in
 * no header name, and no label has a ":", so the first ":" of a key ends its label).
 */
function sourceLabel(source: KeySource): string {
  if (source.kind === "ip") return "ip";
  const name = source.name.toLowerCase();
  return name === "ip" ? "header/ip" : name;
}

/**
 * The limited key: the first of the sources that the request has. With one source the key is the
 * value itself (so overrides and POST /v1/ratelimits/check name the same key); with a fallback chain
 * each value is prefixed by its source's label (`ip:…`, `x-api-key:…`, sourceLabel()), so no source's
 * value can be made to equal another's (a header someone's address).
 */
export function requestKey(p: AuthzParams, headers: { get(name: string): string | null }): { key: string } | { missing: string } | { invalid: string } {
  const why: string[] = [];
  for (const source of p.keys) {
    let value: string;
    if (source.kind === "ip") {
      const ip = clientIp(headers, p.trustedHops);
      if ("invalid" in ip) return ip;
      if ("missing" in ip) {
        why.push(ip.missing);
        continue;
      }
      value = ip.value;
    } else {
      const v = headers.get(source.name)?.trim();
      if (!v) {
        why.push(`no ${source.name} header`);
        continue;
      }
      value = v;
    }
    const label = sourceLabel(source);
    const key = p.keys.length > 1 ? `${label}:${value}` : value;
    if (key.length > MAX_KEY_LENGTH) return { invalid: `the key from ${label} is ${key.length} characters; at most ${MAX_KEY_LENGTH}` };
    const unstorable = unstorableText(key);
    if (unstorable) return { invalid: `the key from ${label} ${unstorable}` };
    return { key };
  }
  return { missing: why.join("; ") };
}

/**
 * Marks a refusal of the client's request (its value: the problem's slug). A gateway's own key refused
 * (401/403 of the bearer guard) never carries it, so a gateway tells "this client is refused" from
 * "my configuration is wrong" on the same status (nginx's auth_request sees only 401 and 403).
 */
export const AUTHZ_REFUSED_HEADER = "Admit-Authz-Refused";

/** A refusal answered with the gateway's deny status: the problem's `status` is the one sent. */
function denied(p: ProblemError, status: DenyStatus): ProblemError {
  return new ProblemError({ ...p.problem, status } as Problem, { ...p.headers, [AUTHZ_REFUSED_HEADER]: p.problem.type.replace(/^\/problems\//, "") });
}

/**
 * The handler of every method on /v1/authz and /v1/authz/*. Who may call it: the app's bearer guard on
 * /v1/* (functions/http/app.ts) runs first, on `Authorization` — the gateway's own key, which the
 * gateway sets on the check (docs/gateways.md); with scoped keys this route's scope is
 * `ratelimits:check`, its names every `policy` asked.
 */
export async function authorizeRequest(c: Context<AppEnv>): Promise<Response> {
  const length = Number(c.req.header("Content-Length") ?? "0");
  if (length > MAX_BODY_BYTES) throw problem("payload-too-large", `A forward-auth check reads no body; ${length} bytes is over ${MAX_BODY_BYTES}.`);
  const url = new URL(c.req.url);
  const prefixed = url.pathname !== AUTHZ_PATH;
  let params: AuthzParams;
  if (prefixed) {
    const header = c.req.header(AUTHZ_PARAMS_HEADER);
    if (header === undefined) {
      throw validationProblem(
        `Below ${AUTHZ_PATH}/ the query string is the client's: give the parameters in the ${AUTHZ_PARAMS_HEADER} header (policy=…&key=…).`,
        [{ in: "header", path: AUTHZ_PARAMS_HEADER, message: "required below /v1/authz/ (Envoy's path_prefix): set it in the gateway's configuration" }],
      );
    }
    params = authzParams(new URLSearchParams(header), { in: "header", prefix: `${AUTHZ_PARAMS_HEADER}.` });
  } else {
    params = authzParams(url.searchParams, { in: "query", prefix: "" });
  }

  const k = requestKey(params, { get: (name) => c.req.raw.headers.get(name) });
  if ("invalid" in k) throw denied(problem("ratelimit-key-invalid", `${k.invalid}. Nothing was counted.`), params.denyStatus);
  if ("missing" in k) {
    if (params.onMissing === "allow") return c.json({ allowed: true, reason: "no-key", detail: k.missing }, 200, { "Admit-RateLimit-Key": "missing" });
    throw denied(problem("ratelimit-key-missing", `This request has no key to limit it by: ${k.missing}. Nothing was counted.`), params.denyStatus);
  }

  const multi = params.policies.length > 1;
  const client = listSubject(c.req.raw.headers, params.trustedHops);
  const r = await check(
    c.var.db,
    multi ? { policies: params.policies, key: k.key, cost: params.cost, ...client } : { policy: params.policies[0], key: k.key, cost: params.cost, ...client },
    { cache: denyCacheFor(c.env), env: c.env, via: "authz" },
  );
  if (r.kind === "failOpen") return c.json(r.body, 200, r.headers);
  // A deny list entry answers 403 whatever deny_status says: nginx and every gateway read 403 as a refusal.
  if (r.kind === "failClosed" || r.kind === "refused") throw r.refusal;
  if (r.kind === "missing") throw noPolicy(r.missing[0]);
  if (r.kind === "listed") return c.json(r.body, 200, r.headers);
  const { headers } = r;
  const { result } = r.decision;
  if (result.allowed) return c.json(result, 200, headers);
  const refusal = multi
    ? quotaExceeded(result, headers)
    : problem(
        "rate-limited",
        `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}; nothing was consumed.`,
        { ...result },
        headers,
      );
  throw denied(refusal, params.denyStatus);
}
