// Every ```sh / ```bash example of README.md and docs/*.md, run top to bottom (one bash per file)
// against a fresh `npm start` on free ports and a throwaway data dir: a status other than the one a
// command states (`# → 409`), a non-2xx where none is stated, or any 5xx fails, naming the file,
// block, line, command and its output. Conventions: the header of dev/examples.ts. No timing asserted.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeFailure, exampleFiles, extractBlocks, type Fresh, runFile, startFresh } from "../../dev/examples";
import { ROOT } from "../../dev/local";

describe("the extractor", () => {
  it("takes sh/bash blocks only, joins continuations, and reads the expected status", () => {
    const md = [
      "```sh",
      "# a comment",
      'curl -s "$ADMIT/a" \\',
      "  -d x   # → 409",
      "",
      "echo hi",
      "```",
      "```console",
      "npm start",
      "```",
      "```bash",
      "true",
      "```",
    ].join("\n");
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

describe("the runner's checks (against a stub server answering the status in its path)", () => {
  let server: Server;
  let base: string;
  const dir = mkdtempSync(join(tmpdir(), "admit-examples-stub-"));
  beforeAll(async () => {
    server = createServer((req, res) => {
      const status = Number(/\/(\d{3})$/.exec(req.url ?? "")?.[1] ?? 200);
      res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify({ status, auth: req.headers.authorization ?? null }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (name: string, ...lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, ["# t", "", "```sh", ...lines, "```", ""].join("\n"));
    return runFile(file, { admit: base, token: "t0ken" });
  };

  it("passes stated statuses and unstated 2xx, with ADMIT and TOKEN set", async () => {
    const r = await run(
      "ok.md",
      'curl -s "$ADMIT/x/201"',
      'curl -s "$ADMIT/x/409"   # → 409',
      'curl -s -H "Authorization: Bearer $TOKEN" "$ADMIT/x/200" | grep t0ken >/dev/null',
    );
    expect(r.ok, describeFailure(r)).toBe(true);
  });

  it("fails a status other than the stated one, naming the line and the command", async () => {
    const r = await run("wrong.md", 'curl -s "$ADMIT/x/200"', 'curl -s "$ADMIT/x/201"   # → 409', "echo never");
    expect(r.ok).toBe(false);
    expect(r.failed?.line).toBe(5);
    expect(describeFailure(r)).toContain("got 201, the document says 409");
    expect(r.output).not.toContain("$ echo never");
  });

  it("fails an unstated 4xx, and any 5xx even when stated", async () => {
    expect((await run("4xx.md", 'curl -s "$ADMIT/x/404"')).ok).toBe(false);
    expect((await run("5xx.md", 'curl -s "$ADMIT/x/503"   # → 503')).ok).toBe(false);
  });

  it("fails a command that fails (set -euo pipefail), also inside a pipeline", async () => {
    expect((await run("false.md", "false", "true")).ok).toBe(false);
    expect((await run("pipe.md", 'curl -s "$ADMIT/x/200" | grep -q no-such-text')).ok).toBe(false);
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
