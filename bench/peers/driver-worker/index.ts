// The bench's "driver alone" Worker: the rate-limit check's one statement per request through the
// Neon driver, configured exactly as Admit's Worker configures it (createClient: pipelined connect,
// one frame per statement), and nothing else — no routing, auth, validation, deny cache, problem
// documents or headers. Its edge row is the most any Worker on this runtime, driver and bridge can
// do with that statement on this machine, so the report can tell what Admit's own code costs from
// what the transport costs. Bench only (started by bench/stack.ts on loopback): no auth at all.
import { createClient, DEFAULT_LOCK_TIMEOUT_MS } from "../../../functions/db";
import type { Bindings } from "../../../functions/env";
import { CHECK_SQL } from "../../../functions/ratelimit-middleware";

export default {
  async fetch(req: Request, env: Bindings, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<Response> {
    if (req.method !== "POST") return new Response("driver-worker: POST {policy, key} to check\n");
    const { policy, key } = (await req.json()) as { policy: string; key: string };
    const client = createClient(env);
    try {
      await client.connect();
      const { rows } = await client.query(CHECK_SQL, [policy, key, 1, null, DEFAULT_LOCK_TIMEOUT_MS]);
      const r = rows[0].r as { allowed: boolean } | null;
      return Response.json(r, { status: r === null ? 404 : r.allowed ? 200 : 429 });
    } catch (err) {
      return Response.json({ error: String(err) }, { status: 503 });
    } finally {
      ctx.waitUntil(client.end());
    }
  },
};
