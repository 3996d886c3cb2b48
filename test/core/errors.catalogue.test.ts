// The problem catalogue (functions/core/errors.ts) is the one list of problem types: docs/errors.md
// documents exactly those, with the same statuses, and no code names a type outside it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { PROBLEMS, problem } from "../../functions/core/errors";
import { filesUnder } from "../support";

describe("problem catalogue", () => {
  it("docs/errors.md has one row per catalogued problem, with its status", () => {
    const rows = [...readFileSync(join(ROOT, "docs", "errors.md"), "utf8").matchAll(/^\| `([a-z-]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    const documented = Object.fromEntries(rows);
    expect(rows.length, "a slug documented twice").toBe(Object.keys(documented).length);
    const catalogued = Object.fromEntries(Object.entries(PROBLEMS).map(([slug, p]) => [slug, p.status]));
    expect(documented).toEqual(catalogued);
  });

  it("every /problems/<slug> the code mentions (descriptions, examples, checks) is catalogued", () => {
    const unknown = filesUnder(join(ROOT, "functions"), ".ts").flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/\/problems\/([a-z-]+)/g)]
        .map((m) => m[1])
        .filter((slug) => !(slug in PROBLEMS))
        .map((slug) => `${f}: ${slug}`),
    );
    expect(unknown).toEqual([]);
  });

  it("problem(slug) takes its status and title from the catalogue", () => {
    const p = problem("semaphore-full", "every permit in use", { permits: 4 }, { "Retry-After": "3" });
    expect(p.problem).toEqual({ type: "/problems/semaphore-full", title: "No permit free", status: 429, detail: "every permit in use", permits: 4 });
    expect(p.headers).toEqual({ "Retry-After": "3" });
  });

  it("every problem example in the OpenAPI document has its type's catalogued title (and status, where it says one)", async () => {
    const { createApp } = await import("../../functions/http/app");
    const doc = await (await createApp().request("/openapi.json")).json();
    const wrong: string[] = [];
    let checked = 0;
    const walk = (x: unknown, at: string) => {
      if (Array.isArray(x)) {
        x.forEach((v, i) => {
          walk(v, `${at}[${i}]`);
        });
        return;
      }
      if (typeof x !== "object" || x === null) return;
      const o = x as Record<string, unknown>;
      const slug = typeof o.type === "string" && o.type.startsWith("/problems/") ? o.type.slice("/problems/".length) : null;
      if (slug && slug in PROBLEMS && typeof o.title === "string") {
        checked++;
        const c = PROBLEMS[slug as keyof typeof PROBLEMS];
        if (o.title !== c.title) wrong.push(`${at}: title ${JSON.stringify(o.title)}, catalogued ${JSON.stringify(c.title)}`);
        // /v1/authz answers its refusals with the gateway's deny_status (429, 403 or 401).
        const denyStatus = at.startsWith("paths./v1/authz.") && [401, 403, 429].includes(o.status as number) && c.status === 429;
        if (typeof o.status === "number" && o.status !== c.status && !denyStatus) wrong.push(`${at}: status ${o.status}, catalogued ${c.status}`);
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${at}.${k}`);
    };
    walk(doc.paths, "paths");
    expect(wrong).toEqual([]);
    expect(checked, "problem examples found in the document").toBeGreaterThan(100);
  });
});
