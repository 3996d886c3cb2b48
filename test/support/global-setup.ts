// One embedded Postgres (free port, throwaway data dir) and one WebSocket bridge for the whole run.
// Migrations are applied once to a template database; each suite clones it (test/support/index.ts), so
// suites never see each other's rows. Nothing here collides with a running `npm start`.
import "../../dev/node-ws";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startBridge } from "../../dev/bridge";
import { startPostgres } from "../../dev/postgres";
import { migrate } from "../../tools/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    templateUrl: string;
    adminUrl: string;
    wsProxy: string;
  }
}

export default async function setup(project: TestProject) {
  const started = Date.now();
  const dataDir = await mkdtemp(join(tmpdir(), "admit-test-pg-"));
  // Slow statements and lock waits (dev/postgres.ts logs them), reported at the end of the run: when a
  // request somewhere timed out, this says what Postgres was doing meanwhile.
  const slow: string[] = [];
  const onServerLog = (line: string) => {
    if (/duration: \d|still waiting for|deadlock detected|acquired \w+ on/.test(line) && slow.push(line.slice(0, 600)) > 200) slow.shift();
  };
  const pg = await startPostgres({ dataDir, persistent: false, database: "admit_template", onServerLog });
  const bridge = await startBridge();
  try {
    await migrate({ databaseUrl: pg.url, wsProxy: bridge.wsProxy });
  } catch (err) {
    await bridge.close();
    await pg.stop();
    throw err;
  }
  console.log(`[admit] test Postgres on ${pg.host}:${pg.port}, bridge ${bridge.wsProxy}, migrated in ${Date.now() - started} ms`);
  project.provide("templateUrl", pg.url);
  project.provide("adminUrl", pg.urlFor("postgres"));
  project.provide("wsProxy", bridge.wsProxy);
  return async () => {
    await bridge.close();
    await pg.stop();
    if (slow.length > 0)
      console.log(`[admit] Postgres logged ${slow.length} slow statement(s) or lock wait(s) in this run (not failures by themselves):\n${slow.join("\n")}`);
  };
}
