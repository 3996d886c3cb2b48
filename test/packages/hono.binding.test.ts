// @admit/hono's binding types (packages/hono/src/binding.ts) are written out, so a Worker using the
// package bundles no code of Admit's; this checks them against the entrypoint's own types, derived
// from METHODS (functions/http/rpc/client.ts): the same method names, every published input accepted
// by the entrypoint, every answer of the entrypoint (result or `{ error }`) within the published
// answer. `tsc -p .` checks the assertions below; the test compiles this file itself, once as it is
// (clean) and once with a published method's answer narrowed (an error), so a check that stopped
// checking would fail here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AdmitBinding as Published } from "@admit/hono";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import type { AdmitBinding as Derived } from "../../functions/http/rpc/client";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Answer<F> = F extends (...a: never[]) => Promise<infer R> ? R : never;
type Input<F> = F extends (input: infer I, ...rest: never[]) => unknown ? I : never;

/** Each method: `true`, or the method's name where the published types disagree with the entrypoint. */
type InputsAccepted = { [M in keyof Derived]: [Input<Published[M]>] extends [Input<Derived[M]>] ? true : M };
type AnswersCovered = { [M in keyof Derived]: [Answer<Derived[M]>] extends [Answer<Published[M]>] ? true : M };
type AllTrue<T> = { [K in keyof T]: true };

const sameMethods: Same<keyof Derived, keyof Published> = true;
const inputsAccepted: AllTrue<InputsAccepted> = {} as InputsAccepted;
const answersCovered: AllTrue<AnswersCovered> = {} as AnswersCovered;
void [sameMethods, inputsAccepted, answersCovered];

const THIS_FILE = fileURLToPath(import.meta.url);

let previous: ts.Program | undefined;

/** TypeScript's diagnostics for this file with `text` in its place (the previous program reused: the second compile is incremental). */
function diagnostics(text: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) =>
    name === THIS_FILE ? ts.createSourceFile(name, text, version) : getSourceFile.call(host, name, version, ...rest);
  const program = ts.createProgram({ rootNames: [THIS_FILE], options: config.options, host, oldProgram: previous });
  previous = program;
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === THIS_FILE)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("@admit/hono's binding types", () => {
  it("match the entrypoint's: clean as they are, an error when a published answer leaves out what the entrypoint answers", () => {
    const source = readFileSync(THIS_FILE, "utf8");
    expect(diagnostics(source)).toEqual([]);
    // The published answer of reserve() narrowed to its success alone: the entrypoint's conflict
    // answer no longer fits, and the check must say so.
    const narrowed = source.replace(
      "type AnswersCovered = { [M in keyof Derived]: [Answer<Derived[M]>] extends [Answer<Published[M]>] ? true : M };",
      'type AnswersCovered = { [M in keyof Derived]: [Answer<Derived[M]>] extends [M extends "reserve" ? { created: true } : Answer<Published[M]>] ? true : M };',
    );
    expect(narrowed).not.toBe(source);
    expect(diagnostics(narrowed).join("\n")).toContain("reserve");
  }, 300_000);
});
