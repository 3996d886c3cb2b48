// `npm run examples`: every shell example in README.md and docs/*.md, run top to bottom against a
// fresh `npm start` (its own throwaway data dir, free ports), so no example rots. test/docs/examples.test.ts
// runs the same in `npm test`.
//
// Conventions for the documents:
// - ```sh and ```bash blocks run; every other fence language does not. Commands that must not run
//   here (`npm start` itself, deploys, `wrangler secret put`, anything needing Neon) go in ```console
//   or ```text blocks.
// - Each file's blocks run in order in ONE bash (`set -euo pipefail`), so a variable set in one block
//   is there in the next. The environment holds ADMIT (the base URL) and TOKEN (the API token):
//   write `curl -s -H "Authorization: Bearer $TOKEN" "$ADMIT/v1/..."`.
// - In that bash `curl` is a function around the real one that records the HTTP status. A command
//   (a line, with its `\` continuations) ending in a comment `# → 409` must get exactly that status
//   from the curl it runs; a curl with no such comment must get a 2xx. A 5xx, or no answer, always
//   fails. Nothing is retried and nothing is timed; a curl that has no answer within 30 s fails
//   (`--max-time 30`), and a whole document gets 180 s.
// - Use names (resources, keys, policies, sources, items) that no other document uses, so the files
//   do not collide, and every file must work on a fresh start.
// - A command is one logical line: keep multi-line quoted strings and heredocs out of runnable blocks.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { guardProcessGroup } from "./lifeline";
import { ROOT } from "./local";
import { freeStartPorts, spawnNpmStart, throwawayDataDir } from "./npm-start";

export interface Command {
  /** 1-based line in the document where the command starts. */
  line: number;
  text: string;
  /** The status its curl must answer, from a trailing `# → NNN`; undefined: any 2xx. */
  expect?: number;
}

export interface Block {
  file: string;
  /** 1-based index of the runnable block within its file. */
  index: number;
  line: number;
  commands: Command[];
}

const RUNNABLE = new Set(["sh", "bash"]);
const EXPECT = /#\s*→\s*(\d{3})\b/;

/** The runnable blocks of one Markdown document, in order. */
export function extractBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let fence: { lang: string; line: number; indent: string; body: { n: number; text: string }[] } | undefined;
  lines.forEach((raw, i) => {
    const open = /^(\s*)(```+)\s*([A-Za-z0-9_-]*)/.exec(raw);
    if (!fence && open) {
      fence = { lang: open[3].toLowerCase(), line: i + 1, indent: open[1], body: [] };
      return;
    }
    if (fence && /^\s*```+\s*$/.test(raw)) {
      if (RUNNABLE.has(fence.lang)) blocks.push({ file, index: blocks.length + 1, line: fence.line, commands: logicalCommands(fence.body) });
      fence = undefined;
      return;
    }
    if (fence) fence.body.push({ n: i + 1, text: raw.startsWith(fence.indent) ? raw.slice(fence.indent.length) : raw.trimStart() });
  });
  return blocks;
}

/** Joins `\` continuations; drops blank and comment-only lines. */
function logicalCommands(body: { n: number; text: string }[]): Command[] {
  const out: Command[] = [];
  let current: { line: number; parts: string[] } | undefined;
  for (const { n, text } of body) {
    if (!current) {
      if (!text.trim() || /^\s*#/.test(text)) continue;
      current = { line: n, parts: [] };
    }
    current.parts.push(text);
    if (!/\\\s*$/.test(text)) {
      const joined = current.parts.join("\n");
      const m = EXPECT.exec(current.parts[current.parts.length - 1]);
      out.push({ line: current.line, text: joined, ...(m ? { expect: Number(m[1]) } : {}) });
      current = undefined;
    }
  }
  if (current) out.push({ line: current.line, text: current.parts.join("\n") });
  return out;
}

/** The documents whose examples run: README.md, then docs/*.md by name. */
export function exampleFiles(): string[] {
  const docs = join(ROOT, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => join(docs, f))
    : [];
  return [join(ROOT, "README.md"), ...pages];
}

const PRELUDE = String.raw`set -euo pipefail
__admit_state="$1"
: > "$__admit_state/expect"
__expect() { printf '%s' "$1" > "$__admit_state/expect"; }
__at() { printf '%s\n' "$1" > "$__admit_state/at"; printf '\n$ %s\n' "$2"; }
curl() {
  local out status rc want
  out=$(mktemp)
  rc=0
  status=$(command curl -sS --max-time 30 -w '%{http_code}' -o "$out" "$@") || rc=$?
  cat "$out"; if [ -s "$out" ] && [ -n "$(tail -c1 "$out")" ]; then echo; fi; rm -f "$out"
  want=$(cat "$__admit_state/expect"); : > "$__admit_state/expect"
  if [ "$rc" -ne 0 ] || [ "$status" = "000" ]; then echo "[examples] curl failed (exit $rc, status $status)" >&2; return 1; fi
  if [ "$status" -ge 500 ]; then echo "[examples] got $status: a 5xx always fails" >&2; return 1; fi
  if [ -n "$want" ] && [ "$status" != "$want" ]; then echo "[examples] got $status, the document says $want" >&2; return 1; fi
  if [ -z "$want" ] && { [ "$status" -lt 200 ] || [ "$status" -ge 300 ]; }; then echo "[examples] got $status; a curl without '# → NNN' must answer 2xx" >&2; return 1; fi
  return 0
}
`;

/** One bash script for one document: the prelude, then every command, each announced with where it is. */
export function script(blocks: Block[]): string {
  const parts = [PRELUDE];
  for (const b of blocks) {
    for (const c of b.commands) {
      const where = JSON.stringify({ block: b.index, blockLine: b.line, line: c.line, text: c.text });
      parts.push(`__at ${shellQuote(where)} ${shellQuote(c.text.replace(/\\\n\s*/g, ""))}`);
      if (c.expect !== undefined) parts.push(`__expect ${c.expect}`);
      parts.push(c.text);
    }
  }
  return parts.join("\n") + "\n";
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface FileResult {
  file: string;
  ok: boolean;
  commands: number;
  output: string;
  /** Where it stopped, when not ok. */
  failed?: { block: number; blockLine: number; line: number; text: string; exitCode: number | null };
}

/** Runs one document's blocks in one bash against `admit` with `token`. */
export async function runFile(file: string, env: { admit: string; token: string }, timeoutMs = 180_000): Promise<FileResult> {
  const blocks = extractBlocks(relative(ROOT, file), readFileSync(file, "utf8"));
  const commands = blocks.reduce((n, b) => n + b.commands.length, 0);
  const rel = relative(ROOT, file);
  if (!commands) return { file: rel, ok: true, commands: 0, output: "" };
  const state = mkdtempSync(join(tmpdir(), "admit-examples-"));
  try {
    const path = join(state, "script.sh");
    writeFileSync(path, script(blocks));
    const child = spawn("bash", [path, state], {
      cwd: state, // examples never depend on the repository's files
      env: { ...process.env, ADMIT: env.admit, TOKEN: env.token },
      // A process group of its own: on timeout, bash AND what it runs (a curl, a sleep) are killed.
      // Killing bash alone would leave its child holding the output pipes, and "close" would wait for it.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The group outlives us unless someone kills it: the guard does, if this process dies first.
    const release = child.pid !== undefined ? guardProcessGroup(child.pid) : () => {};
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    // "exit", not "close": a leftover grandchild holding the pipes must not keep us waiting.
    const code = await new Promise<number | null>((resolve) => {
      child.once("exit", (c) => resolve(c));
      child.once("error", () => resolve(null));
    });
    clearTimeout(timer);
    // Whatever bash left running in its group (a background job) goes with it.
    if (!timedOut) killGroup();
    release();
    // Output still in the pipes after "exit": a moment to read it, no more.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (grace = setTimeout(resolve, 500)))]);
    clearTimeout(grace);
    if (timedOut) output += `\n[examples] no end within ${timeoutMs} ms: bash and what it ran were killed\n`;
    if (code === 0) return { file: rel, ok: true, commands, output };
    let at = { block: 0, blockLine: 0, line: 0, text: "(before the first command)" };
    try {
      at = JSON.parse(readFileSync(join(state, "at"), "utf8"));
    } catch {
      /* nothing ran */
    }
    return { file: rel, ok: false, commands, output, failed: { ...at, exitCode: code } };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** A report of a failed document: file, block, line, the command and what it printed. */
export function describeFailure(r: FileResult): string {
  if (r.ok || !r.failed) return `${r.file}: ok`;
  const f = r.failed;
  const tail = r.output.split("\n").slice(-60).join("\n");
  return `${r.file}:${f.line} (block ${f.block}, opened at line ${f.blockLine}) failed with exit ${f.exitCode}:\n  ${f.text.replace(/\n/g, "\n  ")}\n--- output (last lines) ---\n${tail}`;
}

export interface Fresh {
  admit: string;
  token: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** `npm start` on free ports and a throwaway ADMIT_DATA_DIR (and `env`, e.g. a dev registry of its own); resolves with the URL and token it prints. */
export async function startFresh(timeoutMs = 180_000, env: NodeJS.ProcessEnv = {}): Promise<Fresh> {
  const ports = await freeStartPorts();
  const dataDir = throwawayDataDir("admit-examples-data-");
  const npm = spawnNpmStart(ports, dataDir, env);
  // Its own process group outlives us unless someone kills it: the guard does (SIGTERM, then
  // SIGKILL), if this process — a test worker — dies before stop().
  const release = npm.pid !== undefined ? guardProcessGroup(npm.pid) : () => {};
  let out = "";
  npm.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  npm.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (c) => resolve(c)));
  let gone = false;
  void exited.then(() => (gone = true));

  const stop = async () => {
    if (!gone) {
      try {
        process.kill(-npm.pid!, "SIGINT"); // Ctrl-C: npm start stops Postgres, the bridge and workerd
      } catch {
        /* gone */
      }
      const code = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
      if (code === "running") {
        try {
          process.kill(-npm.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
      }
    }
    release();
    rmSync(dataDir, { recursive: true, force: true });
  };

  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (gone) break;
    const url = /^\s*URL\s+(\S+)/m.exec(out)?.[1];
    const token = /^\s*API token\s+(\S+)/m.exec(out)?.[1];
    if (url && token) {
      try {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
        if (res.status === 200) return { admit: url, token, output: () => out, stop };
      } catch {
        /* not yet */
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`npm start did not print its URL and token and serve /health within ${timeoutMs} ms:\n${out}`);
}

async function main(): Promise<void> {
  const files = process.argv.slice(2).length ? process.argv.slice(2).map((f) => resolve(f)) : exampleFiles();
  // ADMIT and TOKEN set: use that running Admit (its data is not fresh: names may already exist).
  const given = process.env.ADMIT && process.env.TOKEN ? { admit: process.env.ADMIT, token: process.env.TOKEN } : undefined;
  const fresh = given ? undefined : await startFresh();
  const target = given ?? { admit: fresh!.admit, token: fresh!.token };
  console.log(`[examples] against ${target.admit}${fresh ? " (a fresh npm start)" : ""}`);
  let failed = 0;
  try {
    for (const file of files) {
      const r = await runFile(file, target);
      if (r.ok) console.log(`[examples] ok   ${r.file} (${r.commands} commands)`);
      else {
        failed++;
        console.log(`[examples] FAIL ${describeFailure(r)}`);
      }
    }
  } finally {
    await fresh?.stop();
  }
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && /dev[\\/]examples\.ts$/.test(process.argv[1])) void main();
