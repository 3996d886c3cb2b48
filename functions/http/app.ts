// The Hono app: guards, error handling, docs, and each capability's routes.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { keys } from "../apikeys";
import { authenticate, RouteScopes, requireNames, requireScope } from "../core/auth";
import type { AppEnv } from "../core/context";
import { onError } from "../core/errors";
import { documentCommonResponses, problemResponses } from "../core/openapi";
import { declaredScope } from "../core/scopes";
import { validationHook } from "../core/validation";
import { documentIdempotencyKey, idempotency } from "../idempotency";
import { inventory } from "../inventory";
import { invoices, locks, semaphores } from "../permits";
import { AUTHZ_PATH, AUTHZ_SCOPE, isForwardAuth, ratelimits } from "../ratelimits";
import { reservations } from "../reservations";
import { documentDelivery, isWebhookDelivery, WEBHOOK_DELIVERY_PATH, webhooks } from "../webhooks";
import { jsonBodies } from "./body";
import { database } from "./database";
import { documentExamples } from "./examples";
import { methodsOf, noRoute } from "./methods";
import { authFailures, decisions, getMetrics, metricsHandler } from "./metrics";
import { mountPages } from "./pages";

const HEALTH_BUDGET_MS = 4_000;

const DOC_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Admit",
    version: "0.1.0",
    description: [
      "Correct yes/no answers under burst traffic: each request is one short Postgres transaction using transaction-scoped locks and constraints only.",
      "Errors are `application/problem+json`. Times are RFC 3339 (returned in UTC with `Z`); intervals are half-open `[start, end)`.",
      "`409`/`429` mean a lost race or a limit (nothing applied); `503` + `Retry-After` means nothing was applied, retry; `504` means the write was sent and no answer came.",
    ].join("\n\n"),
    // package.json says "private": no open-source licence is granted.
    license: { name: "Proprietary (private package, no licence granted)" },
  },
  // Relative: the document is served by the Worker it describes, wherever that is deployed.
  servers: [{ url: "/", description: "The Worker serving this document" }],
  tags: [
    { name: "Service", description: "Liveness and database reachability" },
    { name: "Reservations", description: "A resource held for a half-open time range, never two at once" },
    { name: "Locks", description: "Leases with fencing tokens: one holder per key at a time" },
    { name: "Semaphores", description: "At most N holders at a time, with fencing tokens" },
    { name: "Invoices", description: "One invoice generation per subscription at a time (fail fast)" },
    { name: "Inventory", description: "Nightly stock, bookings and holds without overbooking" },
    {
      name: "Webhooks",
      description:
        "Signed webhook receiver (Standard Webhooks, Stripe, GitHub, Shopify, Slack, any HMAC; exactly once per sender id) and a pull queue for consumers",
    },
    { name: "Rate limits", description: "Policies, per-key overrides, checks, refunds and usage" },
    { name: "Keys", description: "Scoped API keys (hashed, rotatable) and the audit log of configuration changes" },
  ],
  security: [{ bearer: [] }],
};

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  // A path no route has: 404; a method the path lacks: 405 with Allow (OPTIONS: 204 with Allow).
  app.notFound(noRoute(methodsOf(() => app.routes)));

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description:
      "`Authorization: Bearer <API_TOKEN or key>`. The root API_TOKEN holds every scope; a key (`admit_…`, POST /v1/keys) holds the scopes listed on each operation (`x-scope`) — docs/api-keys.md",
  });

  // The browser pages, before any guard: public, no body, no database (functions/http/pages.ts).
  mountPages(app);

  // Auth first: a caller without the token, or without the route's scope, learns nothing about the
  // route or its body rules. Webhook deliveries (exactly POST /v1/webhooks/:source) are
  // authenticated by their signature instead. Each route's scope is the one it declared beside its
  // definition (scoped(), core/scopes.ts), read from the registry once every route is mounted.
  const scopes = new RouteScopes();
  const who = authenticate();
  // A refused credential counted (admit_auth_failures_total): the gateways' operators read it there.
  app.use("/v1/*", authFailures(isForwardAuth));
  app.use("/metrics", authFailures(isForwardAuth));
  app.use("/v1/*", (c, next) => (isWebhookDelivery(c) ? next() : who(c, next)));
  app.use("/v1/*", requireScope(scopes));
  // Prometheus scrapes with a bearer token too: the root token or a key with metrics:read (docs/observability.md).
  app.use("/metrics", who, requireScope(scopes));
  app.use("*", jsonBodies({ larger: isWebhookDelivery }));
  app.use("*", database());
  // Names after the body guard and the database handle (a reservation id is resolved to its
  // resource), and before the Idempotency-Key: a stored answer is never replayed to a key that may
  // not make the request.
  app.use("/v1/*", requireNames(scopes));
  // Each decision counted in the isolate, written after the response (functions/core/tally.ts).
  app.use("/v1/*", decisions(isWebhookDelivery));
  // A write carrying Idempotency-Key runs once, in one transaction with its stored response.
  // Not the forward-auth check (/v1/authz, any method): a gateway may pass the client's own
  // Idempotency-Key through, and a decision must never be replayed.
  app.use("/v1/*", idempotency({ exempt: (c) => isWebhookDelivery(c) || isForwardAuth(c.req.path) }));

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      operationId: "getHealth",
      tags: ["Service"],
      summary: "Liveness and database reachability",
      security: [],
      responses: {
        200: { description: "The database answered `select 1`", content: { "application/json": { schema: z.object({ ok: z.literal(true) }) } } },
        ...problemResponses(503),
      },
    }),
    async (c) => {
      await c.var.db.query("SELECT 1", [], { withinMs: HEALTH_BUDGET_MS });
      return c.json({ ok: true as const }, 200);
    },
  );

  app.route("/", reservations);
  app.route("/", locks);
  app.route("/", semaphores);
  app.route("/", invoices);
  app.route("/", inventory);
  app.route("/", webhooks);
  app.route("/", ratelimits);
  app.route("/", keys);
  app.openapi(getMetrics, metricsHandler);

  for (const def of app.openAPIRegistry.definitions) {
    if (def.type === "route") scopes.add(def.route.method, def.route.path, declaredScope(def.route));
  }
  // The forward-auth check answers every method, on its path and every path below it.
  for (const path of [AUTHZ_PATH, `${AUTHZ_PATH}/*`]) scopes.add("ALL", path, AUTHZ_SCOPE);

  const signed = (method: string, path: string) => method === "post" && path === WEBHOOK_DELIVERY_PATH;
  // The document is the same for every request once the routes are mounted: built on first use.
  let doc: ReturnType<typeof buildDocument> | undefined;
  const buildDocument = () =>
    documentExamples(
      documentCommonResponses(documentDelivery(documentIdempotencyKey(app.getOpenAPI31Document(DOC_CONFIG), (m, p) => signed(m, p) || isForwardAuth(p))), {
        signed,
        keyed: (method, path) => path.startsWith("/v1/") && method !== "get" && method !== "head" && !signed(method, path) && !isForwardAuth(path),
      }),
    );
  const openApi = () => (doc ??= buildDocument());
  app.get("/openapi.json", (c) => c.json(openApi()));
  // /docs (public/docs.html: /openapi.json rendered with Scalar's bundle) and /dashboard
  // (public/dashboard.html, docs/dashboard.md) are the admit-pages Worker's static assets, reached
  // over the PAGES binding (mountPages above).
  app.get("/", (c) => c.json({ name: "Admit", docs: "/docs", dashboard: "/dashboard", openapi: "/openapi.json", health: "/health", metrics: "/metrics" }));
  return app;
}
