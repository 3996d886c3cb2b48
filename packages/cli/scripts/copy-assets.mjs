// The files the CLI ships beside its code, copied from Admit's repository at build time: the numbered
// migrations (schema/*.sql, for `admit migrate`) and the policies file's JSON Schema.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";

const root = new URL("../../../", import.meta.url);
rmSync(new URL("../schema/", import.meta.url), { recursive: true, force: true });
mkdirSync(new URL("../schema/", import.meta.url));
for (const f of readdirSync(new URL("schema/", root)).filter((f) => /^\d{6}_[a-z0-9_]+\.sql$/.test(f)))
  copyFileSync(new URL(`schema/${f}`, root), new URL(`../schema/${f}`, import.meta.url));
copyFileSync(new URL("public/policies.schema.json", root), new URL("../dist/policies.schema.json", import.meta.url));
