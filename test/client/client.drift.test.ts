// packages/client/src/schema.d.ts (@admit/client's types) is generated from the OpenAPI document by
// `npm run client:generate`; this fails when the committed file is not what the current document gives,
// i.e. a route's schema changed and the client was not regenerated.
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATE_COMMAND, CLIENT_SCHEMA_FILE, generateClientSchema } from "../../dev/client-generate";
import { ROOT } from "../../dev/local";
import { firstDifference } from "../support";

describe("the generated client types", () => {
  it("packages/client/src/schema.d.ts is what the current OpenAPI document generates", async () => {
    const committed = await readFile(CLIENT_SCHEMA_FILE, "utf8").catch(() => "");
    const diff = firstDifference(committed, await generateClientSchema(), { committed: "committed", fresh: "from the current document" });
    expect(
      diff,
      `${relative(ROOT, CLIENT_SCHEMA_FILE)} is out of date with the OpenAPI document: run \`${CLIENT_GENERATE_COMMAND}\` and commit the file.\n${diff}`,
    ).toBeNull();
  });
});
