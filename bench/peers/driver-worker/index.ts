// The bench's "driver alone" Worker: the rate-limit check's one statement per request through the
// Neon driver, configured exactly as Admit's Worker configures it, and nothing else — no routing,
// auth, validation, deny cache, problem documents or headers. Two ways, as Admit has them:
// - `POST /check/http`: `neon()`, one `fetch` per statement to the SQL endpoint, pointed at the
//   bridge's `/sql` exactly as Admit's RequestDb points it (httpEndpoint + the routed fetch of
//   functions/core/db.ts);
// - `POST /check/websocket` (and `POST /check`): a WebSocket `Client` per request (createClient:
//   pipelined connect, one frame per statement), closed in waitUntil.
// Its edge rows are the most any Worker on this runtime, driver and bridge can do with that
// statement on this machine, so the report can tell what Admit's own code costs from what the
// transport costs. Bench only (started by bench/stack.ts on loopback): no auth at all.
import { neon } from "@neondatabase/serverless";
import { createClient, DEFAULT_LOCK_TIMEOUT_MS, ENDPOINT, type EndpointInit, httpEndpoint, installRoutedFetch } from "../../../functions/core/db";
import type { Bindings } from "../../../functions/core/env";
import { CHECK_SQL } from "../../../functions/ratelimits/sql";

type Check = { allowed: boolean } | null;

/** One `neon()` per connection string for the isolate's life, as Admit keeps it (it holds no connection). */
const httpSql = new Map<string, ReturnType<typeof neon>>();

async function viaHttp(env: Bindings, params: unknown[]): Promise<Check> {
  const url = env.DATABASE_URL!;
  let sql = httpSql.get(url);
  if (!sql) httpSql.set(url, (sql = neon(url, { fullResults: true })));
  const endpoint = httpEndpoint(env);
  const fetchOptions: EndpointInit = {};
  if (endpoint) {
    installRoutedFetch();
    fetchOptions[ENDPOINT] = endpoint;
  }
  const { rows } = await sql.query(CHECK_SQL, params, { fullResults: true, fetchOptions });
  return (rows[0] as { r: Check }).r;
}

async function viaWebSocket(env: Bindings, params: unknown[], ctx: { waitUntil(p: Promise<unknown>): void }): Promise<Check> {
  const client = createClient(env);
  try {
    await client.connect();
    const { rows } = await client.query(CHECK_SQL, params);
    return rows[0].r as Check;
  } finally {
    ctx.waitUntil(client.end());
  }
}

export default {
  async fetch(req: Request, env: Bindings, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (req.method !== "POST" || !["/check", "/check/http", "/check/websocket"].includes(path)) {
      return new Response("driver-worker: POST {policy, key} to /check/http or /check/websocket\n");
    }
    const { policy, key } = (await req.json()) as { policy: string; key: string };
    const params = [policy, key, 1, null, DEFAULT_LOCK_TIMEOUT_MS];
    try {
      const r = path === "/check/http" ? await viaHttp(env, params) : await viaWebSocket(env, params, ctx);
      return Response.json(r, { status: r === null ? 404 : r.allowed ? 200 : 429 });
    } catch (err) {
      return Response.json({ error: String(err) }, { status: 503 });
    }
  },
};
