import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type Bridge, startBridge } from "../../dev/bridge";
import { type PgHandle, startPostgres } from "../../dev/postgres";

let pg: PgHandle;
let bridge: Bridge;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "admit-bridge-"));
  fs.chmodSync(tmp, 0o755); // as root, postgres runs as user "postgres" and must enter tmp
  pg = await startPostgres({ dataDir: path.join(tmp, "data"), persistent: false });
  bridge = await startBridge();
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await pg?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 30_000);

function neonClient(connectionString: string): Client {
  const c = new Client({ connectionString });
  c.neonConfig.webSocketConstructor = WebSocket;
  c.neonConfig.wsProxy = bridge.wsProxy;
  c.neonConfig.useSecureWebSocket = false;
  c.neonConfig.pipelineTLS = false;
  c.neonConfig.pipelineConnect = "password";
  return c;
}

function upgrade(query: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${bridge.wsProxy}${query}`);
    ws.on("unexpected-response", (req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    ws.on("open", () => {
      ws.terminate();
      reject(new Error("upgrade unexpectedly accepted"));
    });
    ws.on("error", reject);
  });
}

describe("bridge", () => {
  it("refuses non-loopback targets with 403 without connecting", async () => {
    const before = bridge.stats();
    const targets = ["10.0.0.1:5432", "example.com:5432", "0.0.0.0:5432", "192.168.1.1:5432", "[::]:5432"];
    for (const address of targets) {
      const { status, body } = await upgrade(`?address=${address}`);
      expect(status, address).toBe(403);
      expect(body).toContain("loopback");
    }
    const after = bridge.stats();
    expect(after.refused - before.refused).toBe(targets.length);
    expect(after.connections).toBe(before.connections);
  });

  it("rejects a missing or malformed address with 400", async () => {
    expect((await upgrade("")).status).toBe(400);
    expect((await upgrade("?address=127.0.0.1")).status).toBe(400);
    expect((await upgrade("?address=127.0.0.1:99999")).status).toBe(400);
  });

  it("carries Postgres traffic for the Neon driver", async () => {
    const before = bridge.stats().clientMessages;
    const c = neonClient(pg.url);
    await c.connect();
    try {
      const { rows } = await c.query<{ x: number }>("select 1 as x");
      expect(rows).toEqual([{ x: 1 }]);
    } finally {
      await c.end();
    }
    expect(bridge.stats().clientMessages).toBeGreaterThan(before);
  });

  it("fails fast when nothing listens on the target port", async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const c = neonClient(`postgres://postgres:admit@127.0.0.1:${port}/admit`);
    c.on("error", () => {});
    const started = Date.now();
    // With pipelineConnect the driver's connect() resolves as soon as the WebSocket opens, so the
    // failure surfaces on the first query.
    // failure surfaces on the first query. The bridge reports it as Postgres would (SQLSTATE
    // 08006), so the caller knows the pipelined query never reached a server.
    const attempt = c.connect().then(() => c.query("select 1"));
    await expect(attempt).rejects.toMatchObject({ code: "08006", message: expect.stringContaining("could not connect") });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);
});

describe("bridge fault mode", () => {
  /** Runs `text` on a fresh connection; resolves to rows or to the error, never hangs past `ms`. */
  async function attempt(
    text: string,
    params: unknown[] = [],
    ms = 8_000,
  ): Promise<{ rows?: unknown[]; error?: { code?: string; message: string }; timedOut?: true }> {
    const c = neonClient(pg.url);
    c.on("error", () => {});
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = c
        .connect()
        .then(() => c.query(text, params))
        .then((r) => ({ rows: r.rows }));
      const timeout = new Promise<{ timedOut: true }>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
      return await Promise.race([work, timeout]);
    } catch (err) {
      return { error: { code: (err as { code?: string }).code, message: (err as Error).message } };
    } finally {
      clearTimeout(timer);
      void c.end().catch(() => {});
    }
  }

  async function clean<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    bridge.setFaults(undefined);
    const r = await attempt(text, params);
    if (!r.rows) throw new Error(`clean query failed: ${JSON.stringify(r)}`);
    return r.rows as T[];
  }

  beforeAll(async () => {
    await clean("CREATE TABLE IF NOT EXISTS fault_probe (tag text PRIMARY KEY)");
  });
  afterAll(() => bridge.setFaults(undefined));

  it("refuses new connections while asked to, and counts them", async () => {
    const before = bridge.stats().faultRefused;
    bridge.setFaults({ refuse: true });
    const r = await attempt("select 1");
    expect(r.rows).toBeUndefined();
    expect(r.timedOut).toBeUndefined();
    expect(bridge.stats().faultRefused).toBe(before + 1);
    expect(await clean("select 1 as x")).toEqual([{ x: 1 }]);
  });

  it("applies to the next N connections only", async () => {
    bridge.setFaults({ refuse: true, connections: 1 });
    expect((await attempt("select 1 as x")).error).toBeDefined();
    expect((await attempt("select 1 as x")).rows).toEqual([{ x: 1 }]);
    bridge.setFaults(undefined);
  });

  it("cuts after N client messages or bytes, and after N server messages or bytes: an error, never a hang", async () => {
    const plans = [{ clientMessages: 1 }, { clientMessages: 2 }, { clientBytes: 10 }, { serverMessages: 1 }, { serverMessages: 4 }, { serverBytes: 3 }];
    for (const dropAfter of plans) {
      const before = bridge.stats().dropped;
      bridge.setFaults({ dropAfter });
      const r = await attempt("select 1 as x");
      expect(r.timedOut, JSON.stringify(dropAfter)).toBeUndefined();
      expect(r.rows, JSON.stringify(dropAfter)).toBeUndefined();
      expect(bridge.stats().dropped, JSON.stringify(dropAfter)).toBe(before + 1);
    }
    // A limit past the whole exchange lets it through.
    bridge.setFaults({ dropAfter: { serverMessages: 1_000, clientBytes: 1_000_000 } });
    expect((await attempt("select 1 as x")).rows).toEqual([{ x: 1 }]);
    bridge.setFaults(undefined);
  });

  it("delays traffic both ways without reordering it", async () => {
    bridge.setFaults({ delayMs: 150 });
    const started = Date.now();
    const r = await attempt("select string_agg(i::text, ',') as s from generate_series(1, 5000) i");
    // A lower bound only: the request and its answer each waited at least once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect((r.rows as Array<{ s: string }>)[0].s).toBe(Array.from({ length: 5000 }, (_, i) => i + 1).join(","));
    bridge.setFaults(undefined);
  });

  it("drop-before: the statement never reaches Postgres", async () => {
    bridge.setFaults({ statement: { match: "fault_probe", action: "drop-before" } });
    const r = await attempt("INSERT INTO fault_probe VALUES ('drop-before')");
    expect(r.error).toBeDefined();
    expect(r.error?.code).toBeUndefined(); // a lost connection, not a Postgres error
    expect(await clean("SELECT tag FROM fault_probe WHERE tag = 'drop-before'")).toEqual([]);
  });

  it("drop-after: the statement reaches Postgres and commits, though the client only sees a cut connection", async () => {
    bridge.setFaults({ statement: { match: "fault_probe", action: "drop-after" } });
    const r = await attempt("INSERT INTO fault_probe VALUES ('drop-after')");
    expect(r.error).toBeDefined();
    expect(r.error?.code).toBeUndefined();
    await waitFor(async () => (await clean("SELECT tag FROM fault_probe WHERE tag = 'drop-after'")).length === 1);
  });

  it("drop-after an extended-protocol statement (Parse…Sync) delivers all of it", async () => {
    bridge.setFaults({ statement: { match: /INSERT INTO fault_probe/, action: "drop-after" } });
    const r = await attempt("INSERT INTO fault_probe VALUES ($1)", ["drop-after-extended"]);
    expect(r.error).toBeDefined();
    await waitFor(async () => (await clean("SELECT tag FROM fault_probe WHERE tag = $1", ["drop-after-extended"])).length === 1);
  });

  it("stall-after: Postgres commits while the client hears nothing; stall-before: nothing happens at all", async () => {
    bridge.setFaults({ statement: { match: "fault_probe", action: "stall-after" } });
    const after = await attempt("INSERT INTO fault_probe VALUES ('stall-after')", [], 1_500);
    expect(after.timedOut).toBe(true);
    await waitFor(async () => (await clean("SELECT tag FROM fault_probe WHERE tag = 'stall-after'")).length === 1);

    bridge.setFaults({ statement: { match: "fault_probe", action: "stall-before" } });
    const before = await attempt("INSERT INTO fault_probe VALUES ('stall-before')", [], 1_500);
    expect(before.timedOut).toBe(true);
    bridge.setFaults(undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(await clean("SELECT tag FROM fault_probe WHERE tag = 'stall-before'")).toEqual([]);
  });

  it("a random cut ends every connection in an answer or an error, never a hang", async () => {
    bridge.setFaults({ dropAtRandom: { maxBytes: 400, seed: 7 } });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt("INSERT INTO fault_probe VALUES ($1) RETURNING tag", [`random-${i}`])));
    expect(results.filter((r) => r.timedOut)).toEqual([]);
    const ok = results.filter((r) => r.rows).length;
    expect(ok).toBeLessThan(30); // some were cut…
    const stored = await clean<{ n: number }>("SELECT count(*)::int AS n FROM fault_probe WHERE tag LIKE 'random-%'");
    expect(stored[0].n).toBeGreaterThanOrEqual(ok); // …and every answered insert is stored
  });

  it("dropAll cuts open connections at once", async () => {
    bridge.setFaults(undefined);
    const c = neonClient(pg.url);
    c.on("error", () => {});
    await c.connect();
    await c.query("select 1");
    const pending = c.query("select pg_sleep(5)");
    await new Promise((r) => setTimeout(r, 100));
    bridge.dropAll();
    await expect(pending).rejects.toThrow();
    void c.end().catch(() => {});
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
