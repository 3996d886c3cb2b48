// The part of the Workers runtime's `cloudflare:workers` module Admit uses, for Node-side typechecking
// (workerd provides the module; @cloudflare/workers-types is not a dependency).
declare module "cloudflare:workers" {
  export abstract class WorkerEntrypoint<Env = unknown> {
    protected ctx: { waitUntil(promise: Promise<unknown>): void; passThroughOnException(): void };
    protected env: Env;
    constructor(ctx: unknown, env: Env);
    fetch?(request: Request): Response | Promise<Response>;
  }
}
