// Scoped API keys and the audit log (docs/api-keys.md): create, list, revoke and rotate keys; read the
// log of configuration changes. Verifying a key, its cache and the scope check are core/ (auth.ts,
// apikeys.ts, scopes.ts), since every route stands on them. SQL: schema/current/keys.sql.
// Tests: test/apikeys/.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const keys = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.createKey, handlers.createKey)
  .openapi(routes.listKeys, handlers.listKeys)
  .openapi(routes.getKey, handlers.getKey)
  .openapi(routes.revokeKey, handlers.revokeKey)
  .openapi(routes.rotateKey, handlers.rotateKey)
  .openapi(routes.listAudit, handlers.listAudit);
export { KEY_EXAMPLES } from "./examples";
