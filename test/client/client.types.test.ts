// The client's types catch mistakes at compile time. `_wrongCalls` below is never run: each of its
// calls is wrong in one way and carries `// @ts-expect-error`, so `npm run typecheck` (tsc -p .,
// which includes test/) fails as soon as the generated types stop catching one (a marker with no
// error under it is itself an error). The test at the bottom checks the same without waiting for
// typecheck: it compiles this file with TypeScript, once as it is (no errors) and once with the
// markers removed (an error on each marked line).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type components, createAdmitClient, orThrow } from "@admit/client";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ROOT } from "../../dev/local";

const admit = createAdmitClient({ baseUrl: "http://127.0.0.1:1", token: "t" });
const period = { start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };

async function _wrongCalls() {
  // @ts-expect-error a misspelt body field: NewReservation has `holder`, not `owner`
  await admit.POST("/v1/reservations", { body: { resource: "r", owner: "alice", ...period } });
  // @ts-expect-error a path the API does not have (`reservation`, singular)
  await admit.POST("/v1/reservation", { body: { resource: "r", holder: "alice", ...period } });
  // @ts-expect-error a method the path does not have
  await admit.PATCH("/v1/reservations/{id}", { params: { path: { id: "x" } } });
  // @ts-expect-error a path parameter left out
  await admit.GET("/v1/reservations/{id}", {});
  // @ts-expect-error a field of the wrong type: `limit` is a number
  await admit.PUT("/v1/ratelimits/policies/{name}", { params: { path: { name: "p" } }, body: { algorithm: "fixed_window", limit: "10", window_ms: 1000 } });
  // @ts-expect-error an algorithm the API does not know
  await admit.PUT("/v1/ratelimits/policies/{name}", { params: { path: { name: "p" } }, body: { algorithm: "leaky_bucket", limit: 10, window_ms: 1000 } });
  const created = orThrow(await admit.POST("/v1/reservations", { body: { resource: "r", holder: "alice", ...period } }));
  // @ts-expect-error a response field that does not exist
  created.owner;
}

async function _rightCalls() {
  const { data, error } = await admit.POST("/v1/reservations", {
    params: { header: { "Idempotency-Key": "k" } },
    body: { resource: "r", holder: "alice", ...period, metadata: { note: "x" } },
  });
  expectTypeOf(data).toEqualTypeOf<components["schemas"]["Reservation"] | undefined>();
  if (error) expectTypeOf(error.status).toBeNumber();
}

const THIS_FILE = fileURLToPath(import.meta.url);
const MARKER = /^\s*\/\/ @ts-expect-error\b.*$/;

/** TypeScript's diagnostics for this file, compiled with the project's options and `text` in its place. */
function diagnostics(text: string): readonly ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) =>
    name === THIS_FILE ? ts.createSourceFile(name, text, version) : getSourceFile.call(host, name, version, ...rest);
  const program = ts.createProgram({ rootNames: [THIS_FILE], options: config.options, host });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === THIS_FILE);
}

describe("the client's types", () => {
  it("tsc checks this file: clean as it is, and an error on every line marked @ts-expect-error without the marker", () => {
    const source = readFileSync(THIS_FILE, "utf8");
    expect(
      diagnostics(source).map(
        (d) => `line ${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      ),
    ).toEqual([]);

    const lines = source.split("\n");
    const marked = lines.flatMap((l, i) => (MARKER.test(l) ? [i + 1] : [])); // 0-based index of the line after the marker
    expect(marked.length).toBeGreaterThanOrEqual(7);
    const unmarked = lines.map((l) => (MARKER.test(l) ? "" : l)).join("\n");
    const errorLines = new Set(diagnostics(unmarked).map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line));
    for (const line of marked) expect(errorLines.has(line), `no type error at line ${line + 1}: ${lines[line].trim()}`).toBe(true);
  }, 120_000);
});
