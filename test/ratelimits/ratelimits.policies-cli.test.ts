// Limits as code: `admit policies plan|apply|export` (packages/cli/src/policies.ts; `npm run policies`
// is an alias of it) run as a process against a real Admit (the app over HTTP on its own database): plan's diff and exit code,
// apply's creates/updates (deletes only with --prune), idempotence, a policy changed by hand between
// plan and apply, export round-tripping, and a file the schema refuses.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { servedApp, TOKEN } from "../support";

const suite = servedApp("ratelimits_policies_cli");
const dir = mkdtempSync(join(tmpdir(), "admit-policies-"));

function cli(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=admit-source", "--import", "tsx", join(ROOT, "packages/cli/src/main.ts"), "policies", ...args],
      { cwd: ROOT, env: { ...process.env, ADMIT_URL: suite.server.url, ADMIT_TOKEN: TOKEN }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(content));
  return p;
}

const desired = {
  policies: {
    "cli-api": {
      algorithm: "fixed_window",
      limit: 100,
      window_ms: 60_000,
      on_unavailable: "allow",
      timeout_ms: 200,
      overrides: [
        { key: "partner", limit: 1000, valid_from: "2030-01-01T00:00:00Z", valid_to: null },
        { key: "tenant-42:*", limit: 500, valid_from: "2030-01-01T00:00:00Z", valid_to: null },
      ],
    },
    "cli-daily": { algorithm: "token_bucket", limit: 10_000, window_ms: 86_400_000, shadow: true, durable: true },
  },
};

describe("admit policies", () => {
  it("plan shows the difference and exits 2; apply creates; then plan exits 0 and apply changes nothing (idempotent)", async () => {
    const f = file("a.json", desired);
    const plan = await cli(["plan", "--file", f]);
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain("+ policy cli-api");
    expect(plan.out).toContain("+ policy cli-daily");
    expect(plan.out).toContain('+ override cli-api "partner"');
    expect(plan.out).toContain('+ override cli-api "tenant-42:*"');
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api")).status).toBe(404); // plan wrote nothing

    const apply = await cli(["apply", "--file", f]);
    expect(apply.code, apply.out).toBe(0);
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api")).json).toMatchObject({ limit: 100, on_unavailable: "allow", timeout_ms: 200 });
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-daily")).json).toMatchObject({
      algorithm: "token_bucket",
      on_unavailable: "deny",
      shadow: true,
      durable: true,
    });
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api/overrides/partner")).json.items).toMatchObject([{ limit: 1000 }]);
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api/overrides/tenant-42:*")).json.items).toMatchObject([{ limit: 500 }]);

    expect(await cli(["plan", "--file", f])).toMatchObject({ code: 0 });
    const again = await cli(["apply", "--file", f]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("No changes");
  });

  it("a policy changed by hand between plan and apply: apply reads the state itself and puts the file's values back", async () => {
    const f = file("b.json", desired);
    await cli(["apply", "--file", f]);
    expect(await cli(["plan", "--file", f])).toMatchObject({ code: 0 });
    // By hand, after the plan: a new limit and fail mode, and the override's limit.
    await suite.api("PUT", "/v1/ratelimits/policies/cli-api", { algorithm: "fixed_window", limit: 5, window_ms: 60_000 });
    await suite.api("PUT", "/v1/ratelimits/policies/cli-api/overrides/partner", { limit: 7, valid_from: "2030-01-01T00:00:00Z" });
    const apply = await cli(["apply", "--file", f]);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain("~ policy cli-api (limit: 5 → 100");
    expect(apply.out).toContain("limit 7 → 1000");
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api")).json).toMatchObject({ limit: 100, on_unavailable: "allow", timeout_ms: 200 });
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api/overrides/partner")).json.items).toMatchObject([{ limit: 1000 }]);
  });

  it("what the file does not name is kept unless --prune; with it, deleted", async () => {
    const f = file("c.json", desired);
    await cli(["apply", "--file", f]);
    await suite.api("PUT", "/v1/ratelimits/policies/cli-extra", { algorithm: "fixed_window", limit: 1, window_ms: 1000 });
    await suite.api("PUT", "/v1/ratelimits/policies/cli-api/overrides/stranger", { limit: 3, valid_from: "2030-01-01T00:00:00Z" });
    const plan = await cli(["plan", "--file", f]);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain("kept: policy cli-extra");
    expect(await cli(["apply", "--file", f])).toMatchObject({ code: 0 });
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-extra")).status).toBe(200);
    const prunePlan = await cli(["plan", "--file", f, "--prune"]);
    expect(prunePlan.code).toBe(2);
    expect(prunePlan.out).toContain("- policy cli-extra");
    expect(prunePlan.out).toContain('- override cli-api "stranger"');
    expect(await cli(["apply", "--file", f, "--prune"])).toMatchObject({ code: 0 });
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-extra")).status).toBe(404);
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api/overrides/stranger")).json.items).toEqual([]);
    expect(await cli(["plan", "--file", f, "--prune"])).toMatchObject({ code: 0 });
  });

  it("export writes the current state, which plans clean against the same Admit; a changed period is replaced", async () => {
    const out = join(dir, "exported.json");
    expect(await cli(["export", "--file", out])).toMatchObject({ code: 0 });
    const exported = JSON.parse(readFileSync(out, "utf8"));
    expect(exported.policies["cli-api"]).toMatchObject({
      limit: 100,
      overrides: [
        { key: "partner", limit: 1000 },
        { key: "tenant-42:*", limit: 500 },
      ],
    });
    expect(await cli(["plan", "--file", out, "--prune"])).toMatchObject({ code: 0 });
    // The same override ending in 2031: the old open-ended period is replaced, not overlapped (a 409).
    exported.policies["cli-api"].overrides[0].valid_to = "2031-01-01T00:00:00Z";
    const f = file("d.json", exported);
    const apply = await cli(["apply", "--file", f]);
    expect(apply.code, apply.out).toBe(0);
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-api/overrides/partner")).json.items).toMatchObject([
      { limit: 1000, valid_to: expect.stringMatching(/^2031-01-01T00:00:00/) },
    ]);
  });

  it("deny/allow lists: apply puts the entries (an address as written matches its stored network), export round-trips, --prune deletes", async () => {
    const lists = {
      deny: [
        { kind: "ip", value: "2001:DB8:0::/48", policy: "cli-api", reason: "scrapers" },
        { kind: "country", value: "aq" },
      ],
      allow: [{ kind: "prefix", value: "internal-", expires_at: "2099-01-01T00:00:00Z" }],
    };
    const f = file("lists.json", { ...desired, lists });
    const plan = await cli(["plan", "--file", f]);
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain('+ deny ip "2001:DB8:0::/48" of cli-api reason "scrapers"');
    expect(plan.out).toContain('+ allow prefix "internal-" (global) until 2099-01-01T00:00:00Z');
    expect(await cli(["apply", "--file", f])).toMatchObject({ code: 0 });
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "cli-api", key: "k", ip: "2001:db8::5" })).status).toBe(403);
    expect(await cli(["plan", "--file", f])).toMatchObject({ code: 0 }); // stored as 2001:db8::/48 and AQ: the same entries
    const out = join(dir, "lists-exported.json");
    expect(await cli(["export", "--file", out])).toMatchObject({ code: 0 });
    const exported = JSON.parse(readFileSync(out, "utf8"));
    expect(exported.lists.deny).toEqual([
      { kind: "country", value: "AQ" },
      { kind: "ip", value: "2001:db8::/48", policy: "cli-api", reason: "scrapers" },
    ]);
    expect(await cli(["plan", "--file", out])).toMatchObject({ code: 0 });
    const fewer = file("lists-fewer.json", { ...desired, lists: { deny: [lists.deny[1]] } });
    const kept = await cli(["apply", "--file", fewer]);
    expect(kept.out).toContain("kept: deny entry ip");
    expect((await suite.api("GET", "/v1/ratelimits/lists/deny")).json.items).toHaveLength(2);
    expect(await cli(["apply", "--file", fewer, "--prune"])).toMatchObject({ code: 0 });
    expect((await suite.api("GET", "/v1/ratelimits/lists/deny")).json.items.map((e: any) => e.value)).toEqual(["AQ"]);
    expect((await suite.api("GET", "/v1/ratelimits/lists/allow")).json.items).toEqual([]);
  });

  it("a file the schema refuses → exit 65 naming every problem on one line, nothing written", async () => {
    const f = file("bad.json", { policies: { "cli-bad": { algorithm: "leaky", limit: 0, window_ms: 1000 } } });
    const r = await cli(["apply", "--file", f]);
    expect(r.code).toBe(65);
    expect(r.out.trim().split("\n")).toHaveLength(1);
    expect(r.out).toContain("/policies/cli-bad/algorithm");
    expect(r.out).toContain("/policies/cli-bad/limit");
    expect((await suite.api("GET", "/v1/ratelimits/policies/cli-bad")).status).toBe(404);
    expect((await cli(["frobnicate"])).code).toBe(64);
  });
});
