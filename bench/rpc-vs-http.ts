// `npx tsx bench/rpc-vs-http.ts [--calls=N] [--concurrency=C]` (also `npm run bench:rpc`)
//
// The binding-vs-HTTP measurement (bench/binding.ts) on a throwaway stack of its own: the bench's
// stack (bench/stack.ts) without its Workers and without PgBouncer — embedded Postgres, the bridge
// and the migrations on loopback; bench/binding.ts starts the two Workers it times. `npm run bench`
// runs the same measurement as its `binding-vs-http` scenario. Prints a small markdown table.
import { bindingReport, measureBinding } from "./binding";
import { startStack } from "./stack";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);

async function main() {
  const log = (line: string) => console.log(line.trim());
  // edge off: no Admit Worker of the stack's own (measureBinding starts Admit and the gateway, on a
  // dev registry of their own); pgbouncer null: poolSize is then unused.
  const stack = await startStack({ edge: false, pgbouncer: null, poolSize: 1, log });
  try {
    const f = await measureBinding({
      databaseUrl: stack.pg.url,
      wsProxy: stack.bridge.wsProxy,
      calls: arg("calls", 300),
      concurrency: arg("concurrency", 8),
      log,
    });
    console.log(`\n${bindingReport(f)}`);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
