// The reference page's library: Scalar's standalone browser bundle (@scalar/api-reference, a
// devDependency), copied from node_modules into the Worker's static assets (public/, wrangler.toml
// [assets]) so /docs loads nothing from a CDN. The copy is git-ignored; it is made before every
// `wrangler dev` (dev/wrangler.ts: npm start, the tests, the bench) and by `npm run deploy`.
// Run alone: `npx tsx dev/docs-assets.ts`.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SCALAR_TARGET = join(ROOT, "public", "scalar", "standalone.js");

/** The installed bundle's path (throws with what to run when @scalar/api-reference is not installed). */
export function scalarBundle(): string {
  // Not require.resolve: the package's "exports" name neither package.json nor the browser bundle.
  const pkg = join(ROOT, "node_modules", "@scalar", "api-reference");
  if (!existsSync(join(pkg, "package.json")))
    throw new Error("@scalar/api-reference is not installed: run `npm ci` (the /docs page needs its standalone bundle).");
  const file = join(pkg, "dist", "browser", "standalone.js");
  if (!existsSync(file)) throw new Error(`${file} is missing: the installed @scalar/api-reference has no standalone browser bundle.`);
  return file;
}

/**
 * Copies the bundle to public/scalar/standalone.js unless an identical copy is already there.
 * Atomic (a temporary file renamed into place): wrangler dev instances started side by side (the
 * test suites) never serve a half-written file.
 */
export function copyDocsAssets(): string {
  const source = scalarBundle();
  if (existsSync(SCALAR_TARGET) && statSync(SCALAR_TARGET).size === statSync(source).size && readFileSync(SCALAR_TARGET).equals(readFileSync(source)))
    return SCALAR_TARGET;
  mkdirSync(dirname(SCALAR_TARGET), { recursive: true });
  const tmp = `${SCALAR_TARGET}.${process.pid}.tmp`;
  copyFileSync(source, tmp);
  renameSync(tmp, SCALAR_TARGET);
  return SCALAR_TARGET;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`copied the Scalar bundle to ${copyDocsAssets()}`);
}
