// The Worker entry: HTTP routes, and the cron (housekeeping and webhook forwarding retries).

import type { Bindings } from "./core/env";
import { scheduled as sweep } from "./core/sweep";
import { createApp } from "./http/app";
import { forwardDue } from "./webhooks";

export const app = createApp();

/** The cron: the sweepers' housekeeping, and the webhook forwarding attempts that are due (retries, and any an isolate did not finish). */
async function scheduled(event: unknown, env: Bindings, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<void> {
  await sweep(event, env, ctx);
  ctx.waitUntil(forwardDue(env).then((n) => n > 0 && console.log(`admit forward: ${n} attempts sent`)));
}

export default {
  fetch: app.fetch,
  scheduled,
};
