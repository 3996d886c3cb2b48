// Scopes: what a key may do (`<area>:<access>`) and on which names (patterns such as `gw-*`), and
// the one place each route says what it needs — `scoped(scope, createRoute({...}))` beside the
// route's definition. The document (per-operation `security` and `x-scope`), the check in
// functions/core/auth.ts and the "every route has a scope" test all read that one declaration.
import type { Context } from "hono";
import type { AppEnv } from "./context";

export const AREAS = ["ratelimits", "reservations", "locks", "semaphores", "inventory", "webhooks", "keys", "audit", "metrics"] as const;
export type Area = (typeof AREAS)[number];
export const ACCESSES = ["read", "decide", "admin", "check"] as const;
export type Access = (typeof ACCESSES)[number];
/**
 * The areas with a `check` access: a decision that spends and nothing else (a rate-limit check, the
 * gateways' /v1/authz), without the area's other decisions (a refund). `decide` includes it, so a
 * key holding `ratelimits:decide` keeps every route it had.
 */
export const CHECK_AREAS = ["ratelimits"] as const satisfies readonly Area[];

/** A scope as written: `ratelimits:decide`, `*:read`, `ratelimits:check`. */
export type Scope = `${Area | "*"}:${Access}`;
/**
 * Built from AREAS and ACCESSES: an area added there (metrics) can be granted. `check` only of the
 * areas that have it (CHECK_AREAS, or `*`): a scope that could grant nothing is refused, not stored.
 */
export const SCOPE_PATTERN = new RegExp(
  `^(?:(\\*|${AREAS.join("|")}):(${ACCESSES.filter((a) => a !== "check").join("|")})|(\\*|${CHECK_AREAS.join("|")}):check)$`,
);

/** Where a route's names come from, as raw request input (read before validation: see auth.ts). */
export interface RawInput {
  param: Record<string, string>;
  query: (name: string) => string | undefined;
  /** The parsed JSON body, or undefined (no body, or not JSON: validation answers that). */
  body: unknown;
}

export interface RouteScope {
  area: Area;
  access: Access;
  /** The names the request touches; every one must match one of the key's patterns. */
  names?: NameSource;
  /**
   * The request's one name cannot be known without a read (a reservation by id): the names it
   * resolves to are checked, and one outside the key's patterns is answered as an id that names
   * nothing (this route's own 404), so the key learns neither the name nor that the thing exists.
   */
  hidden?: (input: RawInput) => Error;
  /** A list: `items[].<field>` outside the key's patterns are left out of the answer. */
  list?: string;
}

/** Where a route's names come from; `what` says it in the document (`x-names`). */
export type NameSource = ((input: RawInput, c: Context<AppEnv>) => string[] | Promise<string[]>) & { what?: string };

/** Routes whose caller is proven another way (a webhook delivery's signature): no bearer token at all. */
export const SIGNED = "signed" as const;
export type RouteAccess = RouteScope | typeof SIGNED;

/** The route config's own key for its scope (copied with the route when a sub-app is mounted). */
export const SCOPE = Symbol.for("admit.scope");

/** Declares a route's scope beside its definition: `scoped({ area, access, names }, createRoute({...}))`. */
export function scoped<R extends object>(access: RouteAccess, route: R): R & { "x-scope"?: string; security: Array<Record<string, string[]>> } {
  const security = access === SIGNED ? [] : [{ bearer: [scopeOf(access)] }];
  const names =
    access === SIGNED
      ? undefined
      : [access.names && (access.names.what ?? "resolved"), access.list && `a list: items whose ${access.list} is outside the key's patterns are left out`]
          .filter(Boolean)
          .join("; ");
  const out = { ...route, security, ...(access === SIGNED ? {} : { "x-scope": scopeOf(access) }), ...(names ? { "x-names": names } : {}) } as R & {
    "x-scope"?: string;
    security: Array<Record<string, string[]>>;
  };
  Object.defineProperty(out, SCOPE, { value: access, enumerable: true });
  return out;
}

export function scopeOf(s: { area: Area; access: Access }): Scope {
  return `${s.area}:${s.access}`;
}

/** The scope a route declared, if any. */
export function declaredScope(route: object): RouteAccess | undefined {
  return (route as Record<symbol, RouteAccess | undefined>)[SCOPE];
}

/** Names from path parameters. */
export const fromParam = (...fields: string[]): NameSource =>
  Object.assign((i: RawInput): string[] => fields.map((f) => i.param[f]).filter((v): v is string => typeof v === "string"), {
    what: `path ${fields.join(", ")}`,
  });

/** Names from query parameters. */
export const fromQuery = (...fields: string[]): NameSource =>
  Object.assign((i: RawInput): string[] => fields.map((f) => i.query(f)).filter((v): v is string => typeof v === "string"), {
    what: `query ${fields.join(", ")}`,
  });

/** Names from body fields, each a string or an array of strings (`policy`, `policies`). */
export const fromBody = (...fields: string[]): NameSource =>
  Object.assign(
    (i: RawInput): string[] => {
      const b = i.body;
      if (typeof b !== "object" || b === null) return [];
      return fields.flatMap((f) => {
        const v = (b as Record<string, unknown>)[f];
        if (typeof v === "string") return [v];
        if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
        return [];
      });
    },
    { what: `body ${fields.join(", ")}` },
  );

/** Whether `name` matches the glob `pattern` ('*' = any run of characters, anything else literal). */
export function nameMatches(pattern: string, name: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === name;
  if (!name.startsWith(parts[0])) return false;
  let at = parts[0].length;
  const last = parts[parts.length - 1];
  const end = name.length - last.length;
  if (end < at || !name.endsWith(last)) return false;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i], at);
    if (found < 0 || found + parts[i].length > end) return false;
    at = found + parts[i].length;
  }
  return true;
}

/** Whether a name is within patterns (null patterns: every name). */
export function nameAllowed(patterns: readonly string[] | null, name: string): boolean {
  return patterns === null || patterns.some((p) => nameMatches(p, name));
}

/**
 * Name patterns as SQL LIKE patterns ('*' as '%', every other character literal: `\`, `%` and `_`
 * escaped), so that `name LIKE ANY (…)` is nameAllowed() in the database; null stays null (every name).
 */
export function likePatterns(patterns: readonly string[] | null): string[] | null {
  return patterns === null ? null : patterns.map((p) => p.replace(/[\\%_]/g, "\\$&").replaceAll("*", "%"));
}

/**
 * Whether holding `access` of an area grants `need` of it: the same, `admin` includes `read`, and
 * `decide` includes `check`; nothing else implies another.
 */
export function accessIncludes(access: string, need: Access): boolean {
  return access === need || (access === "admin" && need === "read") || (access === "decide" && need === "check");
}

/** Whether held scopes grant `need` (accessIncludes, on its area or `*`). */
export function grants(held: readonly string[], need: { area: Area; access: Access }): boolean {
  return held.some((s) => {
    const [area, access] = s.split(":");
    if (area !== "*" && area !== need.area) return false;
    return accessIncludes(access, need.access);
  });
}

/**
 * Whether a key holding `held` / `patterns` may create or hold a key with `scopes` / `names`: every
 * scope granted by its own (exactly: `*:admin` covers `keys:admin`, `keys:admin` does not cover
 * `*:admin`), and every new pattern within one of its own (the new pattern, '*' read literally,
 * matches one of its patterns: then every name the new one matches, that one matches).
 */
export function covers(held: readonly string[], patterns: readonly string[] | null, scopes: readonly string[], names: readonly string[] | null): boolean {
  const scopeOk = scopes.every((s) => {
    const [area, access] = s.split(":");
    if (area === "*") return held.some((h) => h.startsWith("*:") && accessIncludes(h.slice(2), access as Access));
    return grants(held, { area: area as Area, access: access as Access });
  });
  if (!scopeOk) return false;
  if (patterns === null) return true;
  if (names === null) return false;
  return names.every((n) => patterns.some((p) => nameMatches(p, n)));
}
