// The browser pages (/docs, /dashboard and the files they load) are static assets of a Worker of
// their own, `admit-pages` (functions/http/pages/wrangler.toml, assets from public/), which Admit reaches
// over the PAGES Service Binding for exactly these paths. Admit itself has no [assets]: with them,
// every request — every decision — passed the static-assets router first (locally about 700 µs of
// workerd CPU per request, half the edge capacity; docs/performance.md). Now only a page pays a hop.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { httpProblem, problemResponse } from "../core/errors";

/** The paths served from public/ (what html_handling = "auto-trailing-slash" makes of its files). */
export const PAGE_PATHS = ["/docs", "/docs.html", "/dashboard", "/dashboard/", "/dashboard.html", "/dashboard/*", "/scalar/*"];

export function mountPages(app: OpenAPIHono<AppEnv>) {
  app.on(["GET", "HEAD"], PAGE_PATHS, (c) => {
    const pages = c.env?.PAGES;
    if (!pages)
      return problemResponse(
        c,
        httpProblem(
          404,
          "The /docs and /dashboard pages are served by the admit-pages Worker, which is not bound here (PAGES). Deploy it (`npm run deploy` deploys both), or read /openapi.json.",
        ).problem,
      );
    return pages.fetch(c.req.raw);
  });
}
