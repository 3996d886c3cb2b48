// `npx tsx bench/rpc-vs-http.ts [--calls=N] [--concurrency=C]` (also `npm run bench:rpc`)
//
// The binding-vs-HTTP measurement (bench/binding.ts) on a throwaway stack of its own: embedded
// Postgres, the bridge and the migrations on loopback. `npm run bench` runs the same measurement as
// its `binding-vs-http` scenario. Prints a small markdown table.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../dev/migrate";
import { startPostgres } from "../dev/postgres";
import { bindingReport, measureBinding } from "./binding";
import { startBridgeProcess } from "./bridge-process";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);

async function main() {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const pgh = await startPostgres({ dataDir: mkdtempSync(join(tmpdir(), "admit-rpc-bench-pg-")), persistent: false, database: "admit_bench" });
    stops.push(() => pgh.stop());
    const bridge = await startBridgeProcess();
    stops.push(() => bridge.close());
    await migrate({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy });
    const f = await measureBinding({
      databaseUrl: pgh.url,
      wsProxy: bridge.wsProxy,
      calls: arg("calls", 300),
      concurrency: arg("concurrency", 8),
      log: (line) => console.log(line.trim()),
    });
    console.log(`\n${bindingReport(f)}`);
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
