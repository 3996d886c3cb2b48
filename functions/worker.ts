// The module wrangler runs (wrangler.toml `main`): the Worker of functions/index.ts (HTTP routes and
// the cron) and its RPC entrypoint `Admit` (functions/http/rpc/), which imports `cloudflare:workers` and
// so is not loaded by Node (tests import functions/index.ts).

export { Admit } from "./http/rpc/entrypoint";
export { default } from "./index";
