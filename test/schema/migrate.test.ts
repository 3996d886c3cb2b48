// The migrator: in order, once each, recorded, and safe with two migrators at once.
import { appendFile, cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { loadMigrations, migrate, SCHEMA_DIR } from "../../tools/migrate";
import { freshDatabase, sql } from "../support";

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "admit-schema-"));
  scratch.push(dir);
  return dir;
}

describe("migrate", () => {
  it("gives up on a host that never answers, naming it, instead of waiting for the OS's TCP timeout", async () => {
    // Accepts the connection and never answers a byte.
    const sockets: import("node:net").Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const err = await migrate({ databaseUrl: `postgres://u:p@127.0.0.1:${port}/x`, wsProxy: `127.0.0.1:${port}/v1`, connectTimeoutMs: 1_000 }).catch(
        (e: Error) => e,
      );
      expect((err as Error).message).toBe(
        `migrate: no connection to 127.0.0.1:${port} within 1 s; check DATABASE_URL (and NEON_WS_PROXY, if set) and that the database is up`,
      );
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("applies every schema file once, in order, and records it", async () => {
    const url = await freshDatabase("fresh", { migrated: false });
    const files = (await loadMigrations()).map((m) => m.name);
    const first = await migrate({ databaseUrl: url, wsProxy: inject("wsProxy") });
    expect(first.applied).toEqual(files);
    const second = await migrate({ databaseUrl: url, wsProxy: inject("wsProxy") });
    expect(second.applied).toEqual([]);
    const rows = await sql<{ name: string }>(url, "SELECT name FROM admit_migrations ORDER BY id");
    expect(rows.map((r) => r.name)).toEqual(files);
  });

  it("two migrators at once never interleave: each file applied exactly once", async () => {
    const url = await freshDatabase("race", { migrated: false });
    const runs = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: url, wsProxy: inject("wsProxy") })));
    const all = runs.flatMap((r) => r.applied).sort();
    expect(all).toEqual((await loadMigrations()).map((m) => m.name).sort());
    const [{ n }] = await sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM admit_migrations");
    expect(n).toBe(all.length);
  });

  it("refuses an applied file that was edited, and says what to do", async () => {
    const url = await freshDatabase("edited", { migrated: false });
    const dir = await scratchDir();
    await cp(SCHEMA_DIR, dir, { recursive: true });
    await migrate({ databaseUrl: url, wsProxy: inject("wsProxy"), dir });
    await appendFile(join(dir, "000001_core.sql"), "\n-- edited\n");
    await expect(migrate({ databaseUrl: url, wsProxy: inject("wsProxy"), dir })).rejects.toThrow(/append-only.*new numbered file/);
  });

  it("a failing migration rolls back whole and is not recorded", async () => {
    const url = await freshDatabase("failing", { migrated: false });
    const dir = await scratchDir();
    await cp(SCHEMA_DIR, dir, { recursive: true });
    await writeFile(join(dir, "999999_broken.sql"), "CREATE TABLE half_done (x int);\nSELECT no_such_function();\n");
    await expect(migrate({ databaseUrl: url, wsProxy: inject("wsProxy"), dir })).rejects.toThrow(/999999_broken\.sql/);
    const [{ t }] = await sql<{ t: string | null }>(url, "SELECT to_regclass('half_done')::text AS t");
    expect(t).toBeNull();
    const [{ n }] = await sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM admit_migrations WHERE id = 999999");
    expect(n).toBe(0);
  });

  it("rejects badly named files with a next step", async () => {
    const dir = await scratchDir();
    await writeFile(join(dir, "1_x.sql"), "SELECT 1;");
    await expect(loadMigrations(dir)).rejects.toThrow(/six digits/);
  });
});
