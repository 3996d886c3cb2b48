// The browser pages' libraries, copied from node_modules (devDependencies) into the Worker's static
// assets (public/, the admit-pages Worker's [assets]: functions/http/pages/wrangler.toml) so /docs and /dashboard load nothing from a CDN:
//   - Scalar's standalone bundle (@scalar/api-reference) → public/scalar/standalone.js, for /docs;
//   - uPlot's browser build and stylesheet (uplot) → public/dashboard/vendor/, for /dashboard's chart.
// The copies are git-ignored; they are made before every `wrangler dev` (dev/wrangler.ts: npm start,
// the tests, the bench) and by `npm run deploy`. Run alone: `npx tsx dev/docs-assets.ts`.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SCALAR_TARGET = join(ROOT, "public", "scalar", "standalone.js");
export const UPLOT_TARGET_DIR = join(ROOT, "public", "dashboard", "vendor");

/** `file` of installed package `name` (throws with what to run when it is not installed, or lacks the file). */
function installed(name: string, file: string, page: string): string {
  // Not require.resolve: the packages' "exports"/"main" name neither package.json nor the browser files.
  const pkg = join(ROOT, "node_modules", ...name.split("/"));
  if (!existsSync(join(pkg, "package.json"))) throw new Error(`${name} is not installed: run \`npm ci\` (${page}).`);
  const path = join(pkg, file);
  if (!existsSync(path)) throw new Error(`${path} is missing: the installed ${name} does not ship it (${page}).`);
  return path;
}

/** The installed Scalar bundle's path. */
export function scalarBundle(): string {
  return installed("@scalar/api-reference", join("dist", "browser", "standalone.js"), "the /docs page needs its standalone bundle");
}

/** What is copied where: [source in node_modules, target in public/]. */
export function browserAssets(): Array<[string, string]> {
  const uplot = (file: string): [string, string] => [
    installed("uplot", join("dist", file), "the /dashboard chart needs its browser build"),
    join(UPLOT_TARGET_DIR, file),
  ];
  return [[scalarBundle(), SCALAR_TARGET], uplot("uPlot.iife.min.js"), uplot("uPlot.min.css")];
}

/**
 * Copies each library file into public/ unless an identical copy is already there. Atomic (a
 * temporary file renamed into place): wrangler dev instances started side by side (the test
 * suites) never serve a half-written file. Returns the targets.
 */
export function copyBrowserAssets(): string[] {
  return browserAssets().map(([source, target]) => {
    if (existsSync(target) && statSync(target).size === statSync(source).size && readFileSync(target).equals(readFileSync(source))) return target;
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    copyFileSync(source, tmp);
    renameSync(tmp, target);
    return target;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const target of copyBrowserAssets()) console.log(`copied ${target}`);
}
