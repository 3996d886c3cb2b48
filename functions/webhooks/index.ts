// Exactly-once webhook receiving from Standard Webhooks, Stripe, GitHub, Shopify, Slack and any HMAC sender
// (schemes/: one verifier per sender scheme), and a pull queue for consumers.
// SQL: schema/current/webhooks.sql. Tests: test/webhooks/.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import * as forwardHandlers from "./forward-handlers";
import * as forwardRoutes from "./forward-routes";
import * as handlers from "./handlers";
import * as routes from "./routes";
import * as schemas from "./schemas";

export const webhooks = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.putWebhookSource, handlers.putWebhookSource)
  .openapi(routes.listWebhookSources, handlers.listWebhookSources)
  .openapi(routes.getWebhookSource, handlers.getWebhookSource);

// The delivery is documented at /v1/webhooks/{source} and routed on a pattern that leaves out
// `sources` (routes.ts WEBHOOK_DELIVERY_ROUTE), which a document path cannot say. It validates
// nothing through the route: the handler reads the source, headers and raw body itself.
webhooks.openAPIRegistry.registerPath(routes.receiveWebhook);
webhooks.post(schemas.WEBHOOK_DELIVERY_ROUTE, handlers.receiveWebhook);

webhooks
  .openapi(routes.claimWebhookEvents, handlers.claimWebhookEvents)
  .openapi(routes.ackWebhookEvent, handlers.ackWebhookEvent)
  .openapi(routes.listWebhookEvents, handlers.listWebhookEvents)
  .openapi(forwardRoutes.redeliverFailedWebhookEvents, forwardHandlers.redeliverFailedWebhookEvents)
  .openapi(forwardRoutes.listWebhookAttempts, forwardHandlers.listWebhookAttempts)
  .openapi(forwardRoutes.redeliverWebhookEvent, forwardHandlers.redeliverWebhookEvent);

export { WEBHOOK_EXAMPLES } from "./examples";
export { ATTEMPTS_METRIC, forwardDue } from "./forward";
export { orderingValue } from "./handlers";
export { documentDelivery } from "./openapi";
export { RPC } from "./rpc";
export { isWebhookDelivery, WEBHOOK_DELIVERY_PATH } from "./schemas";
