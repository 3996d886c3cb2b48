// The house's two size rules, checked: no import circle anywhere in the repository (madge, over
// every TypeScript folder), and no hand-written source file longer than a reader can hold — 400
// lines outside test/, 600 in test/. Generated files are named below and excepted; SQL migrations
// are not source to split: an applied one can never be edited (tools/migrate.ts refuses it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";

/** Every folder of TypeScript the repository holds: the Worker's, and each package's sources. */
const SOURCE_DIRS = ["functions", "dev", "tools", "bench", "examples", "test", ...packageSources()];
/** Each workspace package's source folder, `packages/<name>/src`. */
function packageSources(): string[] {
  return readdirSync(join(ROOT, "packages"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `packages/${d.name}/src`);
}
/** Generated, never edited by hand: exempt from the length rule. */
const GENERATED = new Set(["packages/client/src/schema.d.ts"]);
const MAX_LINES = 400;
const MAX_TEST_LINES = 600;

/** The import circles among the .ts files under `dirs` (paths relative to `base`), as madge finds them. */
async function circles(base: string, dirs: string[]): Promise<string[][]> {
  const graph = await madge(
    dirs.map((d) => join(base, d)),
    { baseDir: base, fileExtensions: ["ts"], tsConfig: join(ROOT, "tsconfig.json"), detectiveOptions: { ts: { skipTypeImports: false } } },
  );
  return graph.circular();
}

describe("the house", () => {
  it("has no import circle", { timeout: 180_000 }, async () => {
    expect(await circles(ROOT, SOURCE_DIRS)).toEqual([]);
  });

  it("the circle check sees one: two files importing each other are caught", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "admit-circle-"));
    writeFileSync(join(dir, "a.ts"), 'import { b } from "./b";\nexport const a = () => b;\n');
    writeFileSync(join(dir, "b.ts"), 'import type { a } from "./a";\nexport const b = 1 as unknown as typeof a;\n');
    writeFileSync(join(dir, "c.ts"), 'import { b } from "./b";\nexport const c = b;\n');
    expect(await circles(dir, ["."])).toEqual([["a.ts", "b.ts"]]);
  });

  it(`has no hand-written source file over ${MAX_LINES} lines outside test/, none over ${MAX_TEST_LINES} in test/`, () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.mjs", "*.js", "*.cjs"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f && !GENERATED.has(f) && !f.startsWith("public/scalar/") && !f.startsWith("public/dashboard/vendor/"));
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap((f) => {
      const lines = readFileSync(join(ROOT, f), "utf8").split("\n").length - 1;
      const max = f.startsWith("test/") ? MAX_TEST_LINES : MAX_LINES;
      return lines > max ? [`${f}: ${lines} lines (at most ${max}): split it by concern`] : [];
    });
    expect(long).toEqual([]);
  });
});
