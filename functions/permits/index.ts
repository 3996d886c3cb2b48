// Permits: mutual exclusion and bounded concurrency — leases with fencing tokens (/v1/locks), counting
// semaphores (/v1/semaphores), and one invoice generation per subscription at a time on the
// in-request locks of locks.ts (/v1/invoices). A lease is a semaphore of one permit: the same SQL calls.
// A permit is any claim of either kind (table permits, admit_permit_*); a lease is the claim of a
// lock. SQL: schema/current/permits.sql. Tests: test/permits/. Docs: docs/locks.md (locks and
// invoices), docs/semaphores.md.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import * as handlers from "./handlers";
import * as routes from "./routes";

export const locks = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.acquireLock, handlers.acquireLock)
  .openapi(routes.renewLock, handlers.renewLock)
  .openapi(routes.releaseLock, handlers.releaseLock)
  .openapi(routes.getLock, handlers.getLock)
  .openapi(routes.listLocks, handlers.listLocks);

export const semaphores = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.putSemaphore, handlers.putSemaphore)
  .openapi(routes.getSemaphore, handlers.getSemaphore)
  .openapi(routes.listSemaphores, handlers.listSemaphores)
  .openapi(routes.acquireSemaphore, handlers.acquireSemaphore)
  .openapi(routes.renewSemaphore, handlers.renewSemaphore)
  .openapi(routes.releaseSemaphore, handlers.releaseSemaphore);

export const invoices = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(routes.generateInvoice, handlers.generateInvoice);

export { PERMIT_EXAMPLES } from "./examples";
export { type LockResult, lockUnavailable, orConflict, withLock, withTryLock } from "./locks";
export { RPC } from "./rpc";
export { LockUnavailableProblem, MAX_WORK_MS } from "./schemas";
export { acquirePermit, type PermitKind, type PermitOutcome, releasePermit, renewPermit } from "./sql";
