// Who is calling, and may they: the bearer credential (the root API_TOKEN, compared in constant time,
// or a scoped key verified through this isolate's cache, apikeys.ts), then the route's declared
// scope and the names it touches (scopes.ts). docs/api-keys.md.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { type Caller, type KeyCache, keyCache, looksLikeKey } from "./apikeys";
import type { AppEnv, AuthFailure } from "./context";
import { problem } from "./errors";
import { grants, likePatterns, nameAllowed, type RawInput, type RouteAccess, type RouteScope, SIGNED, scopeOf } from "./scopes";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="admit"' };
const INVALID = { "WWW-Authenticate": 'Bearer realm="admit", error="invalid_token"' };

/** The one 401 of a key that is unknown, revoked or expired (nothing tells which). */
export function invalidToken(): Error {
  return problem("unauthorized", "The bearer token is not valid.", {}, INVALID);
}

/**
 * Sets `c.var.caller`: root for API_TOKEN, the key for a valid key's secret. Unknown, revoked and
 * expired keys get one and the same 401. Without API_TOKEN only keys are accepted (docs/api-keys.md:
 * running with no root token); with neither a token nor a key the answer is 503 not-configured.
 */
export function authenticate(cache: KeyCache = keyCache): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const expected = c.env?.API_TOKEN;
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const given = match?.[1];
    if (given !== undefined && looksLikeKey(given)) {
      const key = await cache.verify(given, c.env ?? {});
      if (!key) throw refused(c, "invalid", invalidToken());
      c.set("caller", key);
      return next();
    }
    if (!expected) {
      throw refused(
        c,
        "not_configured",
        problem(
          "not-configured",
          "API_TOKEN is not set: `wrangler secret put API_TOKEN` (production) or run `npm start` (local); or send a key (`admit_…`).",
          {},
          { "Retry-After": "30" },
        ),
      );
    }
    if (given === undefined) throw refused(c, "missing", problem("unauthorized", "Send `Authorization: Bearer <API_TOKEN or key>`.", {}, CHALLENGE));
    if (!tokenMatches(given, expected)) throw refused(c, "invalid", invalidToken());
    c.set("caller", ROOT);
    return next();
  };
}

const ROOT: Caller = { kind: "root" };

/** `err`, with why the credential was refused noted on the request (counted by authFailures(), functions/http/metrics.ts). */
function refused(c: Context<AppEnv>, why: AuthFailure, err: Error): Error {
  c.set("authFailure", why);
  return err;
}

/**
 * Whether `given` equals `expected`, in time that depends only on the expected token's length, never
 * on where the given one first differs. hono's `timingSafeEqual` hashes both sides with SHA-256 first
 * (two `crypto.subtle.digest` calls per request): profiled on the rate-limit check route, that was a
 * third of the route's own CPU. The length of the expected token is all this can reveal.
 */
export function tokenMatches(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ (i < given.length ? given.charCodeAt(i) : 0);
  return diff === 0;
}

/** The declared access of every route, by `METHOD /hono/:path`, and each path's parameter matcher. */
export class RouteScopes {
  private readonly table = new Map<string, { access: RouteAccess | undefined; params: (pathname: string) => Record<string, string> }>();

  add(method: string, path: string, access: RouteAccess | undefined): void {
    const honoPath = path.replaceAll(/\/{(.+?)}/g, "/:$1");
    const segments = honoPath.split("/");
    const names = segments.filter((seg) => seg.startsWith(":")).map((seg) => seg.slice(1));
    const pattern = segments.map((seg) => (seg.startsWith(":") ? "([^/]+)" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/");
    const re = new RegExp(`^${pattern}/?$`);
    const params = (pathname: string) => {
      const m = re.exec(pathname);
      const out: Record<string, string> = {};
      names.forEach((n, i) => {
        const raw = m?.[i + 1];
        if (raw === undefined) return;
        try {
          out[n] = decodeURIComponent(raw);
        } catch {
          out[n] = raw;
        }
      });
      return out;
    };
    this.table.set(`${method.toUpperCase()} ${honoPath}`, { access, params });
  }

  /** The matched route's entry; undefined when no route (only middleware) matched. */
  of(c: Context): { key: string; access: RouteAccess | undefined; params: (pathname: string) => Record<string, string> } | undefined {
    // A route that answers every method (app.all: the forward-auth check) is found by its own entry;
    // other ALL entries are middleware.
    const matched = matchedRoutes(c);
    const route = matched.find((r) => r.method !== "ALL") ?? matched.find((r) => r.method === "ALL" && this.table.has(`ALL ${r.path}`));
    if (!route) return undefined;
    // A parameter's pattern (`:source{…}`, the webhook delivery's) is the router's, not part of the route's key.
    const key = `${route.method} ${route.path.replaceAll(/(:\w+)\{.*?\}(?=\/|$)/g, "$1")}`;
    const entry = this.table.get(key);
    return { key, access: entry?.access, params: entry?.params ?? (() => ({})) };
  }

  entries(): Array<[string, RouteAccess | undefined]> {
    return [...this.table].map(([k, v]) => [k, v.access]);
  }
}

/**
 * The names the caller may read, as LIKE patterns for a list's SQL (scopes.ts likePatterns), or
 * null for every name (the root token, a key without patterns). A list pages over these names only,
 * so its items, its page length and its cursor say nothing of the others.
 */
export function visibleNames(c: Context<AppEnv>): string[] | null {
  const caller = c.var.caller;
  return caller?.kind === "key" ? likePatterns(caller.names) : null;
}

/** 403 naming only what was lacking: the scope, or the one name outside the key's patterns. */
export function forbidden(need: { scope?: string; name?: string }): Error {
  if (need.scope) return problem("forbidden", `This key lacks the scope ${need.scope}.`, { scope: need.scope });
  return problem("forbidden", `This key may not touch ${JSON.stringify(need.name)}.`, { name: need.name });
}

/**
 * The route's scope, checked before the body is read: a caller without it learns nothing of the
 * route's body rules. Root passes everything; a route that declares no scope is root's alone.
 */
export function requireScope(routes: RouteScopes): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.var.caller;
    const route = routes.of(c);
    if (!route || !caller || caller.kind !== "key") return next();
    const access = route.access;
    if (access === undefined) throw refused(c, "scope", problem("forbidden", `${route.key} declares no scope: only the root token may call it.`));
    if (access === SIGNED) return next();
    if (!grants(caller.scopes, access)) throw refused(c, "scope", forbidden({ scope: scopeOf(access) }));
    return next();
  };
}

/**
 * The names the request touches (path, query, body: raw input, before validation, which refuses
 * anything malformed afterwards) must match the key's patterns: else a 403 naming the name the
 * request gave (the same whether the thing exists or not), or, for a name resolved from an id
 * (`hidden`), the route's own 404 for an id that names nothing. A list pages over the names the key
 * may see (visibleNames, in its SQL); its answer is checked here. After the body guard and the
 * database handle (a name resolved by id reads).
 */
export function requireNames(routes: RouteScopes): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.var.caller;
    if (caller?.kind !== "key" || caller.names === null) return next();
    const route = routes.of(c);
    const access = route?.access;
    if (!route || access === undefined || access === SIGNED) return next();
    const patterns = caller.names;
    if (access.names) {
      const input = await rawInput(c, route.params(new URL(c.req.url).pathname));
      const outside = (await access.names(input, c)).find((n) => !nameAllowed(patterns, n));
      if (outside !== undefined) throw access.hidden ? access.hidden(input) : refused(c, "name", forbidden({ name: outside }));
    }
    await next();
    if (access.list) await checkList(c, access as RouteScope & { list: string }, patterns);
  };
}

async function rawInput(c: Context<AppEnv>, param: Record<string, string>): Promise<RawInput> {
  let body: unknown;
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    try {
      body = await c.req.json(); // cached by Hono: the validator reads the same parse
    } catch {
      body = undefined;
    }
  }
  return { param, query: (n) => c.req.query(n), body };
}

/**
 * A list's page holds only names the key may see: its handler pages over them (visibleNames). Were
 * an item outside the patterns here, dropping it would leave the page's cursor and length telling
 * of it, so the answer is refused as the bug it is, never sent.
 */
async function checkList(c: Context<AppEnv>, access: RouteScope & { list: string }, patterns: string[]): Promise<void> {
  const res = c.res;
  if (res.status !== 200 || !res.headers.get("Content-Type")?.includes("application/json")) return;
  const page = (await res.clone().json()) as { items?: Array<Record<string, unknown>> };
  const outside = (page.items ?? []).find((item) => !nameAllowed(patterns, String(item[access.list])));
  if (outside !== undefined) throw new Error(`${c.req.method} ${c.req.path} listed an item outside the caller's name patterns: page over visibleNames(c)`);
}
