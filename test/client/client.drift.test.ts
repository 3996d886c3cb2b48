// client/schema.d.ts (the client's types) is generated from the OpenAPI document by
// `npm run client:generate`; this fails when the committed file is not what the current document gives,
// i.e. a route's schema changed and the client was not regenerated.
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATE_COMMAND, CLIENT_SCHEMA_FILE, generateClientSchema } from "../../dev/client-generate";
import { ROOT } from "../../dev/local";

/** Where the two texts first part, with a few lines of each; null when they are equal. */
function firstDifference(committed: string, fresh: string): string | null {
  if (committed === fresh) return null;
  const a = committed.split("\n");
  const b = fresh.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (lines: string[]) =>
    lines
      .slice(Math.max(0, i - 2), i + 4)
      .map((l, k) => `  ${String(Math.max(0, i - 2) + k + 1).padStart(5)} | ${l}`)
      .join("\n") || "  (end of file)";
  return `first difference at line ${i + 1}:\ncommitted:\n${show(a)}\nfrom the current document:\n${show(b)}`;
}

describe("the generated client types", () => {
  it("client/schema.d.ts is what the current OpenAPI document generates", async () => {
    const committed = await readFile(CLIENT_SCHEMA_FILE, "utf8").catch(() => "");
    const diff = firstDifference(committed, await generateClientSchema());
    expect(
      diff,
      `${relative(ROOT, CLIENT_SCHEMA_FILE)} is out of date with the OpenAPI document: run \`${CLIENT_GENERATE_COMMAND}\` and commit the file.\n${diff}`,
    ).toBeNull();
  });
});
