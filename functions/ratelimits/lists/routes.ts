// The deny and allow lists' API: PUT/GET/DELETE /v1/ratelimits/lists/{list}. An entry is named by
// its list, its scope (one policy, or global), its kind and its value; writes are audited in the same
// statement and make this isolate's next check load the lists afresh (cache.ts); every other isolate
// sees them within LISTS_BOUND_MS. Scoped as the policies: a key limited to some policy names reads
// and writes only their entries, and global entries only a key without name limits (the name
// `(global)`, which no pattern of a policy name matches).
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { auditEntry } from "../../core/audit";
import { visibleNames } from "../../core/auth";
import type { AppEnv } from "../../core/context";
import { notFound, validationProblem } from "../../core/errors";
import { problemResponses } from "../../core/openapi";
import { fromQuery, type NameSource, type RawInput, scoped } from "../../core/scopes";
import { decodeCursor, encodeCursor, name, namePage, PageQuery, Rfc3339 } from "../../core/validation";
import { noPolicy } from "../check";
import { PolicyName } from "../schemas";
import { forgetLists } from "./cache";
import { parseNetwork } from "./ip";
import * as sql from "./sql";

/** The name a global entry is scoped by: outside every policy name (PolicyName has no parentheses). */
export const GLOBAL_NAME = "(global)";

const ListParam = z.object({ list: z.enum(["deny", "allow"]).openapi({ param: { name: "list", in: "path" }, example: "deny", pattern: "^(deny|allow)$" }) });
const Kind = z.enum(["key", "prefix", "ip", "country"]).openapi({
  description:
    "`key`: the limited key, exactly; `prefix`: every key starting with `value`; `ip`: an address or network (CIDR, v4 or v6) the client's address lies in; `country`: an ISO 3166-1 alpha-2 code",
});
const Value = name(500).openapi({ example: "customer-42" });

/** The value must suit its kind: an address or CIDR for ip, two letters for country. */
function valueFits(b: { kind: string; value: string }, ctx: z.RefinementCtx): void {
  if (b.kind === "ip" && parseNetwork(b.value) === null)
    ctx.addIssue({ code: "custom", path: ["value"], message: "for kind ip: must be an IPv4 or IPv6 address or CIDR network" });
  if (b.kind === "country" && !/^[A-Za-z]{2}$/.test(b.value))
    ctx.addIssue({ code: "custom", path: ["value"], message: "for kind country: must be a two-letter country code (ISO 3166-1 alpha-2)" });
}

const EntryBody = z
  .strictObject({
    kind: Kind,
    value: Value,
    policy: PolicyName.optional().openapi({ description: "The policy the entry is for; omitted: every policy (global)" }),
    reason: z.string().max(500).optional().openapi({ example: "card testing from this customer", description: "Why: sent back in a denial's problem" }),
    expires_at: Rfc3339.optional().openapi({ description: "From this moment the entry no longer applies; omitted: never" }),
  })
  .superRefine(valueFits)
  .openapi("RateLimitListEntryInput");

const Entry = z
  .object({
    list: z.enum(["deny", "allow"]),
    policy: z.string().nullable().openapi({ description: "null: every policy (global)" }),
    kind: Kind,
    value: z.string().openapi({ description: "As stored: an ip value as its network (`192.0.2.7/32`), a country upper-case" }),
    reason: z.string().nullable(),
    expires_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    expired: z.boolean(),
  })
  .openapi("RateLimitListEntry");

const DeleteQuery = z
  .object({
    kind: Kind.openapi({ param: { name: "kind", in: "query" } }),
    value: Value.openapi({ param: { name: "value", in: "query" } }),
    policy: PolicyName.optional().openapi({ param: { name: "policy", in: "query" }, description: "The entry's policy; omitted: the global entry" }),
  })
  .superRefine(valueFits);

const ListQuery = PageQuery.extend({
  policy: PolicyName.optional().openapi({ param: { name: "policy", in: "query" }, description: "Only this policy's entries" }),
});

/** The scope name of a write: its policy, else GLOBAL_NAME. */
const entryScope = (from: "body" | "query"): NameSource =>
  Object.assign(
    (i: RawInput): string[] => {
      const p = from === "query" ? i.query("policy") : (i.body as { policy?: unknown } | undefined)?.policy;
      return [typeof p === "string" ? p : GLOBAL_NAME];
    },
    { what: `${from} policy, else "${GLOBAL_NAME}" for a global entry` },
  );

const BOUND = "Every isolate's checks see the change within 5 s; this isolate's at once.";

export const putRateLimitListEntry = scoped(
  { area: "ratelimits", access: "admin", names: entryScope("body") },
  createRoute({
    method: "put",
    path: "/v1/ratelimits/lists/{list}",
    operationId: "putRateLimitListEntry",
    tags: ["Rate limits"],
    summary: "Add or replace a deny or allow list entry",
    description: `An entry is named by (list, policy or global, kind, value); putting it again replaces its reason and expiry. A deny entry refuses a matching check with 403 \`denied-by-list\` before any counter is touched; an allow entry lets it through uncounted (when every policy of the check has one, or it is global). Deny wins over allow. Audited. ${BOUND}`,
    request: { params: ListParam, body: { required: true, content: { "application/json": { schema: EntryBody } } } },
    responses: {
      200: { description: "Replaced", content: { "application/json": { schema: Entry } } },
      201: { description: "Created", content: { "application/json": { schema: Entry } } },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const listRateLimitListEntries = scoped(
  { area: "ratelimits", access: "read", names: fromQuery("policy"), list: "policy" },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/lists/{list}",
    operationId: "listRateLimitListEntries",
    tags: ["Rate limits"],
    summary: "List a deny or allow list's entries",
    description: "By (policy, kind, value), global entries first; expired entries too (`expired: true`) until deleted.",
    request: { params: ListParam, query: ListQuery },
    responses: {
      200: {
        description: "A page of entries",
        content: { "application/json": { schema: z.object({ items: z.array(Entry), next_cursor: z.string().nullable() }).openapi("RateLimitListPage") } },
      },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const deleteRateLimitListEntry = scoped(
  { area: "ratelimits", access: "admin", names: entryScope("query") },
  createRoute({
    method: "delete",
    path: "/v1/ratelimits/lists/{list}",
    operationId: "deleteRateLimitListEntry",
    tags: ["Rate limits"],
    summary: "Remove a deny or allow list entry",
    description: `Audited. ${BOUND}`,
    request: { params: ListParam, query: DeleteQuery },
    responses: { 204: { description: "Removed" }, ...problemResponses(401, 404, 422, 503, 504) },
  }),
);

export const handlePutListEntry: RouteHandler<typeof putRateLimitListEntry, AppEnv> = async (c) => {
  const { list } = c.req.valid("param");
  const b = c.req.valid("json");
  const e = { list, policy: b.policy ?? null, kind: b.kind, value: b.value, reason: b.reason ?? null, expires_at: b.expires_at ?? null };
  const r = await sql.putEntry(c.var.db, e, auditEntry(c.var.caller, c.env ?? {}, "ratelimits.list.put", e.policy ?? GLOBAL_NAME, e));
  forgetLists();
  if (r.status === "no_policy") throw noPolicy(e.policy!);
  if (r.status === "invalid")
    throw validationProblem("value is not an IP address or network.", [
      { in: "body", path: "value", message: "must be an IPv4 or IPv6 address or CIDR network" },
    ]);
  return c.json(r.entry!, r.status === "created" ? 201 : 200);
};

export const handleListEntries: RouteHandler<typeof listRateLimitListEntries, AppEnv> = async (c) => {
  const { list } = c.req.valid("param");
  const q = c.req.valid("query");
  const after = q.cursor ? decodeCursor(q.cursor, (parts) => parts.length === 3) : null;
  const rows = await sql.listEntries(c.var.db, list, q.policy ?? null, after, q.limit, visibleNames(c));
  return c.json(
    namePage(rows, q.limit, (e) => encodeCursor([e.policy ?? "", e.kind, e.value])),
    200,
  );
};

export const handleDeleteListEntry: RouteHandler<typeof deleteRateLimitListEntry, AppEnv> = async (c) => {
  const { list } = c.req.valid("param");
  const q = c.req.valid("query");
  const change = { list, policy: q.policy ?? null, kind: q.kind, value: q.value };
  const gone = await sql.deleteEntry(
    c.var.db,
    list,
    change.policy,
    q.kind,
    q.value,
    auditEntry(c.var.caller, c.env ?? {}, "ratelimits.list.delete", change.policy ?? GLOBAL_NAME, change),
  );
  forgetLists();
  if (!gone)
    throw notFound(
      `No ${list} list entry ${q.kind} ${JSON.stringify(q.value)} ${change.policy === null ? "(global)" : `for ${JSON.stringify(change.policy)}`}.`,
    );
  return c.body(null, 204);
};
