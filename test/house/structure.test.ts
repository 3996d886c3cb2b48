// The layout's rule, checked: a capability (functions/<name>/) imports functions/core/ only, besides
// its own folder and npm packages; core/ imports no capability and not http/. So a capability can
// be read, changed or removed without reading another one.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { filesUnder } from "../support";

const FUNCTIONS = join(ROOT, "functions");
/** Not capabilities: the core, and the composition (http/: the HTTP app and, in http/rpc/, the RPC entrypoint; the Worker's entries are index.ts and worker.ts). */
const NOT_CAPABILITIES = new Set(["core", "http"]);

/** Every relative import in `text` (static, dynamic, re-export) of `file`, with the folder under functions/ it lands in. */
function importsOf(file: string, text = readFileSync(file, "utf8")): Array<{ spec: string; area: string }> {
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
  return specs.map((spec) => {
    const target = relative(FUNCTIONS, resolve(dirname(file), spec));
    return { spec, area: target.startsWith("..") ? "(outside functions/)" : target.split(sep)[0].replace(/\.ts$/, "") };
  });
}

const areaOf = (file: string) => relative(FUNCTIONS, file).split(sep)[0];
const capabilities = readdirSync(FUNCTIONS).filter((f) => statSync(join(FUNCTIONS, f)).isDirectory() && !NOT_CAPABILITIES.has(f));

describe("layout", () => {
  it("there are capability folders beside core/ and http/", () => {
    expect(capabilities.length).toBeGreaterThanOrEqual(5);
    expect(readdirSync(FUNCTIONS).filter((f) => f.endsWith(".ts"))).toEqual(["index.ts", "worker.ts"]);
  });

  it("a capability imports core/ and its own folder only", () => {
    const bad = capabilities.flatMap((cap) =>
      filesUnder(join(FUNCTIONS, cap), ".ts").flatMap((file) =>
        importsOf(file)
          .filter(({ area }) => area !== "core" && area !== cap)
          .map(({ spec }) => `${relative(FUNCTIONS, file)} imports ${spec}`),
      ),
    );
    expect(bad).toEqual([]);
  });

  it("core/ imports nothing but core/", () => {
    const bad = filesUnder(join(FUNCTIONS, "core"), ".ts").flatMap((file) =>
      importsOf(file)
        .filter(({ area }) => area !== "core")
        .map(({ spec }) => `${relative(FUNCTIONS, file)} imports ${spec}`),
    );
    expect(bad).toEqual([]);
  });

  it("in a capability, sql.ts is the only file that names SQL functions (admit_*)", () => {
    const bad = capabilities.flatMap((cap) =>
      filesUnder(join(FUNCTIONS, cap), ".ts")
        .filter((file) => !file.endsWith(`${sep}sql.ts`))
        .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/\badmit_[a-z0-9_]+\s*\(/g)].map((m) => `${relative(FUNCTIONS, file)}: ${m[0]}`)),
    );
    expect(bad).toEqual([]);
    expect(capabilities.filter((cap) => !existsSync(join(FUNCTIONS, cap, "sql.ts")))).toEqual([]);
  });

  it("the rule check sees what it should: a capability importing another is caught", () => {
    // The check itself, on a made-up file: without this, a regex that matches nothing would pass.
    const fake = join(FUNCTIONS, "reservations", "x.ts");
    const text = 'import { a } from "../inventory";\nimport { b } from "../core/db";\nexport * from "./routes";\nconst c = await import("../http/app");';
    expect(importsOf(fake, text).map((i) => i.area)).toEqual(["inventory", "core", "reservations", "http"]);
    expect(areaOf(fake)).toBe("reservations");
  });
});
