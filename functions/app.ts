// The Hono app: guards, error handling, docs, and each capability's routes.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requireToken } from "./auth";
import { database } from "./db";
import { renderDocs } from "./docs";
import type { AppEnv } from "./env";
import { httpProblem, onError, problem, problemResponse } from "./errors";
import { documentIdempotencyKey, idempotency } from "./idempotency";
import { inventory } from "./inventory";
import { problemResponses } from "./openapi";
import { invoices } from "./invoices";
import { locks } from "./locks";
import { ratelimits } from "./ratelimits";
import { reservations } from "./reservations";
import { semaphores } from "./semaphores";
import { validationHook } from "./validation";
import { isWebhookDelivery, WEBHOOK_DELIVERY_PATH, webhooks } from "./webhooks";

export const MAX_BODY_BYTES = 64 * 1024;
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
  },
  security: [{ bearer: [] }],
};

/** Deeper JSON is refused: recursive code (JSON.stringify, Postgres's jsonb parser) overflows its stack on it. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of arrays/objects in a JSON body, strings skipped: a linear scan of the UTF-8
 * bytes (brackets and quotes are ASCII, and no byte of a multi-byte character is), no recursion.
 */
export function jsonDepth(bytes: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    if (inString) {
      if (ch === 0x5c /* \ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) max = Math.max(max, ++depth);
    else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) depth--;
  }
  return max;
}

/** Bodies are JSON, at most 64 KiB and 64 levels deep; anything else is refused before a handler runs. */
function jsonBodies(): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw httpProblem(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    },
  });
  return async (c, next) => {
    const hasBody = Number(c.req.header("Content-Length") ?? "0") > 0 || c.req.header("Transfer-Encoding") !== undefined;
    if (!hasBody || c.req.method === "GET" || c.req.method === "HEAD") return next();
    const type = (c.req.header("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
    if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw httpProblem(415, `Send the body as application/json (got ${JSON.stringify(type || "no Content-Type")}).`);
    }
    return limit(c, async () => {
      // Read the raw bytes once here (hono caches them for the validator, the idempotency hash and
      // the webhook signature) so the depth is checked before anything parses the body.
      if (jsonDepth(new Uint8Array(await c.req.arrayBuffer())) > MAX_JSON_DEPTH) {
        const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
        throw problem(422, "validation", "Validation failed", `body: ${message}.`, { errors: [{ in: "body", path: "(root)", message }] });
      }
      await next();
    });
  };
}

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
  // A write carrying Idempotency-Key runs once, in one transaction with its stored response.
  app.use("/v1/*", idempotency({ exempt: isWebhookDelivery }));

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

  const openApi = () => documentIdempotencyKey(app.getOpenAPI31Document(DOC_CONFIG), (method, path) => method === "post" && path === WEBHOOK_DELIVERY_PATH);
  app.get("/openapi.json", (c) => c.json(openApi()));
  let docsPage: string | undefined;
  app.get("/docs", (c) => c.html((docsPage ??= renderDocs(openApi()))));
  app.get("/", (c) => c.json({ name: "Admit", docs: "/docs", openapi: "/openapi.json", health: "/health" }));
  return app;
}
