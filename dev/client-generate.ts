// `npm run client:generate`: writes packages/client/src/schema.d.ts, the TypeScript types of the
// OpenAPI document that @admit/client (packages/client/src/index.ts, openapi-fetch) is typed by. The document is built in-process from the same
// app the Worker serves (functions/index.ts, its /openapi.json), so no server, database or network is
// needed; openapi-typescript's Node API turns it into types.
//
// test/client/client.drift.test.ts regenerates the types in memory and fails when the committed file
// differs: change a route's schema, run this, commit both.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { app } from "../functions/index";
import { ROOT } from "./local";

export const CLIENT_SCHEMA_FILE = join(ROOT, "packages", "client", "src", "schema.d.ts");
export const CLIENT_GENERATE_COMMAND = "npm run client:generate";

const HEADER = `// GENERATED FILE: DO NOT EDIT.
//
// The types of Admit's OpenAPI document (GET /openapi.json), written by \`${CLIENT_GENERATE_COMMAND}\`
// (dev/client-generate.ts, with openapi-typescript) from the app in functions/index.ts.
// test/client/client.drift.test.ts fails while it is out of date.

`;

/** The OpenAPI document exactly as the Worker serves it. */
export async function openapiDocument(): Promise<OpenAPI3> {
  const res = await app.request("/openapi.json");
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  return (await res.json()) as OpenAPI3;
}

/** The text of packages/client/src/schema.d.ts for the current document. */
export async function generateClientSchema(): Promise<string> {
  // defaultNonNullable: false — a field with a `default` stays optional unless the document lists it as
  // required: request bodies may leave out `cost`, `log`, … (openapi-typescript's default would demand them).
  const ast = await openapiTS(await openapiDocument(), { defaultNonNullable: false });
  return HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(CLIENT_SCHEMA_FILE, await generateClientSchema());
  console.log(`wrote ${CLIENT_SCHEMA_FILE}`);
}
