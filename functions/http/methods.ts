// Which methods a path has (RFC 9110 405 Method Not Allowed, `Allow`, OPTIONS): read from the app's
// own registered routes, the routes that also make /openapi.json, so the two cannot disagree.
import type { Context } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import type { RouterRoute } from "hono/types";
import { getPath } from "hono/utils/url";
import { httpProblem, problemResponse } from "../core/errors";

/** Order of `Allow`: the usual one, then anything else registered, alphabetically. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const rank = (m: string) => (ORDER.includes(m) ? ORDER.indexOf(m) : ORDER.length);

/**
 * `allowed(pathname)`: the methods routes answer on that path, matched by Hono's own router with the
 * routes' own patterns; [] for a path no route has. Middleware is registered for every method
 * ("ALL") and is no route; a route registered for every method (`app.all`) is matched before this
 * is ever asked. HEAD is allowed wherever GET is (Hono answers it from GET) and OPTIONS wherever
 * anything is. Built on first use, when every route is mounted.
 */
export function methodsOf(routes: () => RouterRoute[]): (pathname: string) => string[] {
  let router: TrieRouter<string> | undefined;
  return (pathname) => {
    if (!router) {
      router = new TrieRouter<string>();
      for (const r of routes()) if (r.method !== "ALL") router.add("ALL", r.path, r.method.toUpperCase());
    }
    const methods = new Set(router.match("GET", pathname)[0].map(([method]) => method));
    if (methods.size === 0) return [];
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  };
}

/**
 * The app's answer when no route matched: 404 for a path no route has; for a path that has other
 * methods, 405 with `Allow` (RFC 9110 §15.5.6), or for OPTIONS a 204 with `Allow` (§9.3.7).
 */
export function noRoute(allowed: (pathname: string) => string[]) {
  return (c: Context): Response => {
    const pathname = new URL(c.req.url).pathname;
    const allow = allowed(getPath(c.req.raw));
    if (allow.length === 0) return problemResponse(c, httpProblem(404, `No route for ${c.req.method} ${pathname}. See /docs.`).problem);
    if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allow.join(", ") });
    const detail = `${c.req.method} is not a method of ${pathname}; it has ${allow.join(", ")}. See /docs.`;
    return problemResponse(c, httpProblem(405, detail).problem, { Allow: allow.join(", ") });
  };
}
