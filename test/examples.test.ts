// Every ```sh / ```bash example of README.md and docs/*.md, run top to bottom (one bash per file)
// against a fresh `npm start` on free ports and a throwaway data dir: a status other than the one a
// command states (`# → 409`), a non-2xx where none is stated, or any 5xx fails, naming the file,
// block, line, command and its output. Conventions: the header of dev/examples.ts. No timing asserted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeFailure, exampleFiles, extractBlocks, runFile, startFresh, type Fresh } from "../dev/examples";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { ROOT } from "../dev/local";

describe("the extractor", () => {
  it("takes sh/bash blocks only, joins continuations, and reads the expected status", () => {
    const md = ["```sh", "# a comment", 'curl -s "$ADMIT/a" \\', '  -d x   # → 409', "", "echo hi", "```", "```console", "npm start", "```", "```bash", "true", "```"].join("\n");
    const blocks = extractBlocks("x.md", md);
    expect(blocks.map((b) => b.commands.map((c) => [c.line, c.expect]))).toEqual([
      [
        [3, 409],
        [6, undefined],
      ],
      [[12, undefined]],
    ]);
  });

  it("finds examples in README.md and docs/", () => {
    const files = exampleFiles().map((f) => relative(ROOT, f));
    expect(files[0]).toBe("README.md");
    expect(files.some((f) => f.startsWith("docs/"))).toBe(true);
    // Every relative link resolves to a file inside the repository (none outside it, none broken).
    for (const f of exampleFiles()) {
      for (const [, target] of readFileSync(f, "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const path = resolve(dirname(f), target.split("#")[0]);
        expect(relative(ROOT, path).startsWith(".."), `${relative(ROOT, f)} links outside the repository: ${target}`).toBe(false);
        expect(existsSync(path), `${relative(ROOT, f)} links to a missing file: ${target}`).toBe(true);
      }
    }
  });
});

describe.skipIf(process.platform !== "linux")("README and docs examples against a fresh npm start", () => {
  let fresh: Fresh;
  beforeAll(async () => {
    fresh = await startFresh();
  }, 240_000);
  afterAll(async () => {
    await fresh?.stop();
  }, 60_000);

  for (const file of exampleFiles()) {
    const name = relative(ROOT, file);
    it(`${name} runs top to bottom`, async () => {
      const r = await runFile(file, { admit: fresh.admit, token: fresh.token });
      expect(r.ok, describeFailure(r)).toBe(true);
    }, 240_000);
  }
});
