// The Hono app: guards, error handling, docs, and each capability's routes.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { requireToken } from "../core/auth";
import type { AppEnv } from "../core/context";
import { httpProblem, onError, problemResponse } from "../core/errors";
import { documentCommonResponses, problemResponses } from "../core/openapi";
import { validationHook } from "../core/validation";
import { documentIdempotencyKey, idempotency } from "../idempotency";
import { inventory } from "../inventory";
import { invoices, locks, semaphores } from "../permits";
import { isForwardAuth, ratelimits } from "../ratelimits";
import { reservations } from "../reservations";
import { documentDelivery, isWebhookDelivery, WEBHOOK_DELIVERY_PATH, webhooks } from "../webhooks";
import { jsonBodies } from "./body";
import { database } from "./database";
import { documentExamples } from "./examples";

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
    { name: "Webhooks", description: "Standard Webhooks receiver (exactly once per webhook-id) and a pull queue for consumers" },
    { name: "Rate limits", description: "Policies, per-key overrides, checks, refunds and usage" },
  ],
  security: [{ bearer: [] }],
};

/** `operationId` of every operation (an operation missing here gets one derived from its method and path). */
const OPERATION_IDS: Record<string, string> = {
  "GET /health": "getHealth",
  "POST /v1/reservations": "createReservation",
  "GET /v1/reservations": "listReservations",
  "GET /v1/reservations/{id}": "getReservation",
  "DELETE /v1/reservations/{id}": "cancelReservation",
  "GET /v1/resources/{resource}/availability": "getResourceAvailability",
  "POST /v1/locks/{key}/acquire": "acquireLock",
  "POST /v1/locks/{key}/renew": "renewLock",
  "POST /v1/locks/{key}/release": "releaseLock",
  "GET /v1/locks/{key}": "getLock",
  "GET /v1/locks": "listLocks",
  "PUT /v1/semaphores/{name}": "putSemaphore",
  "GET /v1/semaphores/{name}": "getSemaphore",
  "GET /v1/semaphores": "listSemaphores",
  "POST /v1/semaphores/{name}/acquire": "acquireSemaphore",
  "POST /v1/semaphores/{name}/renew": "renewSemaphore",
  "POST /v1/semaphores/{name}/release": "releaseSemaphore",
  "POST /v1/invoices/generate": "generateInvoice",
  "PUT /v1/inventory/{item}/stock": "putInventoryStock",
  "GET /v1/inventory/{item}/availability": "getInventoryAvailability",
  "POST /v1/inventory/{item}/bookings": "createBooking",
  "POST /v1/inventory/{item}/bookings/{id}/confirm": "confirmBooking",
  "GET /v1/inventory/{item}/bookings/{id}": "getBooking",
  "DELETE /v1/inventory/{item}/bookings/{id}": "cancelBooking",
  "PUT /v1/webhooks/sources/{source}": "putWebhookSource",
  "GET /v1/webhooks/sources/{source}": "getWebhookSource",
  "GET /v1/webhooks/sources": "listWebhookSources",
  "POST /v1/webhooks/{source}": "receiveWebhook",
  "POST /v1/webhooks/{source}/events/claim": "claimWebhookEvents",
  "POST /v1/webhooks/{source}/events/{id}/ack": "ackWebhookEvent",
  "GET /v1/webhooks/{source}/events": "listWebhookEvents",
  "GET /v1/ratelimits/policies": "listRateLimitPolicies",
  "GET /v1/ratelimits/policies/{name}/overrides": "listRateLimitPolicyOverrides",
  "PUT /v1/ratelimits/policies/{name}": "putRateLimitPolicy",
  "GET /v1/ratelimits/policies/{name}": "getRateLimitPolicy",
  "DELETE /v1/ratelimits/policies/{name}": "deleteRateLimitPolicy",
  "PUT /v1/ratelimits/policies/{name}/overrides/{key}": "putRateLimitOverride",
  "GET /v1/ratelimits/policies/{name}/overrides/{key}": "listRateLimitOverrides",
  "DELETE /v1/ratelimits/policies/{name}/overrides/{key}": "deleteRateLimitOverride",
  "POST /v1/ratelimits/check": "checkRateLimit",
  "POST /v1/ratelimits/refund": "refundRateLimit",
  "GET /v1/ratelimits/usage": "getRateLimitUsage",
  "GET /v1/authz": "authorizeRequest",
  "POST /v1/authz": "authorizeRequestPost",
  "PUT /v1/authz": "authorizeRequestPut",
  "PATCH /v1/authz": "authorizeRequestPatch",
  "DELETE /v1/authz": "authorizeRequestDelete",
};

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound((c) => problemResponse(c, httpProblem(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}. See /docs.`).problem));

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", description: "`Authorization: Bearer <API_TOKEN>`" });

  // Auth first: a caller without the token learns nothing about the route or its body rules.
  // Webhook deliveries (exactly POST /v1/webhooks/:source) are authenticated by their signature instead.
  const token = requireToken();
  app.use("/v1/*", (c, next) => (isWebhookDelivery(c) ? next() : token(c, next)));
  app.use("*", jsonBodies());
  app.use("*", database());
  // A write carrying Idempotency-Key runs once, in one transaction with its stored response. Not the
  // forward-auth check (/v1/authz, any method): a gateway may pass the client's own Idempotency-Key
  // through, and a decision must never be replayed.
  app.use("/v1/*", idempotency({ exempt: (c) => isWebhookDelivery(c) || isForwardAuth(c.req.path) }));

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
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

  const signed = (method: string, path: string) => method === "post" && path === WEBHOOK_DELIVERY_PATH;
  // The document is the same for every request once the routes are mounted: built on first use.
  let doc: ReturnType<typeof buildDocument> | undefined;
  const buildDocument = () =>
    documentExamples(
      documentCommonResponses(documentDelivery(documentIdempotencyKey(app.getOpenAPI31Document(DOC_CONFIG), (m, p) => signed(m, p) || isForwardAuth(p))), {
        signed,
        keyed: (method, path) => path.startsWith("/v1/") && method !== "get" && method !== "head" && !signed(method, path) && !isForwardAuth(path),
        operationIds: OPERATION_IDS,
      }),
    );
  const openApi = () => (doc ??= buildDocument());
  app.get("/openapi.json", (c) => c.json(openApi()));
  // /docs is not a route: it is a static asset (public/docs.html, wrangler.toml [assets]) that the
  // Workers runtime serves before the Worker runs, rendering /openapi.json with Scalar's bundle.
  // /dashboard is a static asset too (public/dashboard.html, docs/dashboard.md).
  app.get("/", (c) => c.json({ name: "Admit", docs: "/docs", dashboard: "/dashboard", openapi: "/openapi.json", health: "/health" }));
  return app;
}
