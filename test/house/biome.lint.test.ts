// The formatter and linter (Biome, biome.json) over the whole tree, in npm test so CI runs it: zero findings.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";

describe("Biome", () => {
  it("finds nothing to format or fix (run `npx biome check --write .` to apply its fixes)", () => {
    const r = spawnSync(join(ROOT, "node_modules", ".bin", "biome"), ["check", "--diagnostic-level=info", "--colors=off", "."], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    const output = `${r.stdout}${r.stderr}`;
    expect(r.status, output).toBe(0);
    expect(output).toMatch(/Checked \d+ files/);
    expect(output).not.toMatch(/Found \d+ (error|warning|info)/);
  });
});
