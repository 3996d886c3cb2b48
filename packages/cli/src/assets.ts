// Files the CLI ships beside its code: the policies file's JSON Schema and Admit's numbered
// migrations. In the package they are copied in at build time (dist/policies.schema.json,
// schema/*.sql); run from Admit's repository (src/), the repository's own (public/, schema/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PACKED: Record<string, string> = { "policies.schema.json": "./policies.schema.json", schema: "../schema" };
const REPOSITORY: Record<string, string> = { "policies.schema.json": "../../../public/policies.schema.json", schema: "../../../schema" };

/** The path of a shipped file or folder: `policies.schema.json` or `schema`. */
export function asset(name: "policies.schema.json" | "schema"): string {
  const packed = fileURLToPath(new URL(PACKED[name], import.meta.url));
  return existsSync(packed) ? packed : fileURLToPath(new URL(REPOSITORY[name], import.meta.url));
}
