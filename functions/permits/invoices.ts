// Seed 002's scenario as an endpoint: only one invoice generation per subscription at a time, across
// every Worker, by pg_try_advisory_xact_lock on "invoice_gen/<subscription_id>" — failing fast (409)
// rather than waiting. Different subscriptions never wait for each other.
// SQL: schema/000021_invoices.sql. Library: functions/permits/locks.ts. Tests: test/invoices*.test.ts.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { LockUnavailableProblem, orConflict, withTryLock } from "./locks";
import { problemResponses } from "../core/openapi";
import { json, problemJson } from "../core/openapi";
import { name, validationHook } from "../core/validation";

export const MAX_WORK_MS = 3_000;

const GenerateBody = z
  .object({
    subscription_id: name().openapi({ example: "SUB-1234" }),
    kind: z.enum(["usage", "recurring"]).openapi({ description: "Usage-related or recurring-charges invoice (the seed's M1 and M2)" }),
    work_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WORK_MS)
      .default(0)
      .openapi({ description: `Simulated generation time, 0–${MAX_WORK_MS} ms (pg_sleep inside the locked transaction), so a second request can be seen to collide. Default 0.` }),
  })
  .openapi("InvoiceGeneration");

const Invoice = z
  .object({
    id: z.uuid(),
    subscription_id: z.string(),
    kind: z.enum(["usage", "recurring"]),
    number: z.number().int().openapi({ description: "1, 2, 3… per subscription (max + 1, safe under the lock)" }),
    work_ms: z.number().int(),
    started_at: z.string().openapi({ format: "date-time" }),
    finished_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Invoice");

export const invoices = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

invoices.openapi(
  createRoute({
    method: "post",
    path: "/v1/invoices/generate",
    tags: ["Invoices"],
    summary: "Generate an invoice, one at a time per subscription",
    description:
      "Runs under `pg_try_advisory_xact_lock(fnv64('lock/invoice_gen/' + subscription_id))` in one transaction. A second generation for the same subscription while one runs → 409 at once; the lock is gone when the transaction ends, even if its connection dies.",
    request: { body: { required: true, ...json(GenerateBody) } },
    responses: {
      201: { description: "Generated", ...json(Invoice) },
      409: { description: "A generation for this subscription is running; see Retry-After", ...problemJson(LockUnavailableProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const result = await withTryLock(c.var.db, `invoice_gen/${body.subscription_id}`, async (tx) => {
      const [{ invoice }] = await tx.query<{ invoice: z.infer<typeof Invoice> }>(
        "SELECT admit_generate_invoice($1, $2, $3::integer) AS invoice",
        [body.subscription_id, body.kind, body.work_ms],
        { write: true },
      );
      return invoice;
    });
    const invoice = orConflict(result, `An invoice for ${JSON.stringify(body.subscription_id)} is being generated right now; nothing was done.`);
    return c.json(invoice, 201);
  },
);
