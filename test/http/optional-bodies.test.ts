// A request body a route declares optional means, when left out, the same as `{}`: the route's schema
// runs on it and its defaults apply (core/openapi.ts, optionalJson). @hono/zod-openapi would hand the
// handler an unvalidated `{}` for an optional body sent without a Content-Type, so no route registers
// one as optional; the document still says which bodies may be left out.
import { describe, expect, it } from "vitest";
import { app } from "../../functions/index";

type Body = { required?: boolean; content?: Record<string, unknown> } & Record<string, unknown>;

describe("optional request bodies", () => {
  it("every route's body is registered as required (validated when absent); the document marks the optional ones, and nothing else", async () => {
    const registered: Array<{ id: string; body: Body }> = [];
    for (const def of app.openAPIRegistry.definitions) {
      if (def.type !== "route") continue;
      const body = def.route.request?.body as Body | undefined;
      if (body) registered.push({ id: `${def.route.method.toUpperCase()} ${def.route.path}`, body });
    }
    expect(registered.length).toBeGreaterThanOrEqual(15);
    // A body the library would skip its schema for when absent: none.
    expect(registered.filter((r) => r.body.required !== true).map((r) => r.id)).toEqual([]);

    const doc = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, Record<string, { requestBody?: Body }>> };
    const optional: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const body = op.requestBody;
        if (!body) continue;
        expect(
          Object.keys(body).filter((k) => k.startsWith("x-")),
          `${method} ${path}`,
        ).toEqual([]);
        if (body.required === false) optional.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(optional.sort()).toEqual(["POST /v1/keys/{id}/rotate", "POST /v1/webhooks/{source}/events/claim"]);
  });
});
