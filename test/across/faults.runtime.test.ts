// The fault guarantees inside the real Workers runtime: the Worker under `wrangler dev` (workerd)
// talks to Postgres through this suite's own bridge in fault mode, for every capability in
// test/support/capabilities.ts. What workerd must show as Node does: refused → 503 + Retry-After; the write
// reached Postgres and the answer was lost → 504, and it did commit; retried with the same
// Idempotency-Key (or webhook-id) → the real outcome; cut inside a keyed transaction → 503, nothing kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, type Faults, startBridge } from "../../dev/bridge";
import { ownSocket, startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import { client, freshDatabase, settled as settleAll, sql, TOKEN, withFaults as withBridgeFaults } from "../support";
import { CAPABILITIES, type Capability, type HttpCall, type Query, retryable } from "../support/capabilities";

let db: string;
let bridge: Bridge;
let worker: WranglerDev;
let api: ReturnType<typeof client>;
const q: Query = (text, params) => sql(db, text, params);

beforeAll(async () => {
  db = await freshDatabase("faults_runtime");
  bridge = await startBridge();
  worker = await startWranglerDev({
    direct: true,
    vars: { DATABASE_URL: db, NEON_WS_PROXY: bridge.wsProxy, API_TOKEN: TOKEN, DB_BUDGET_MS: "2000", LOCK_TIMEOUT_MS: "500" },
  });
  api = client(ownSocket(worker));
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await bridge?.close();
});

let seq = 0;
const unique = (what: string) => `${what}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
const send = (c: HttpCall) => api(c.method, c.path, c.body, c.headers);

const withFaults = <T>(faults: Faults, fn: () => Promise<T>): Promise<T> => withBridgeFaults(bridge, faults, fn);

/** Nothing in flight through the bridge or on the database: late commits have landed. */
const settled = () => settleAll(bridge, q);

async function newKey(cap: Capability): Promise<string> {
  const key = unique("rt");
  for (const c of cap.prepare?.(key) ?? []) expect((await send(c)).status, c.path).toBeLessThan(300);
  return key;
}

describe.each(CAPABILITIES.map((c) => [c.name, c] as const))("%s in workerd under connection faults", (_name, cap) => {
  it("refused connection → 503 + Retry-After, nothing written", async () => {
    const key = await newKey(cap);
    const tag = unique("t");
    const res = await withFaults({ refuse: true }, () => send(cap.write(key, tag)));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).not.toBeNull();
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    await settled();
    expect(await cap.applied(q, tag)).toBe(0);
  });

  it("answer lost after the write reached Postgres → 504, it committed, and the retry tells so", async () => {
    const key = await newKey(cap);
    const tag = unique("t");
    const call = retryable(cap, key, tag);
    const commitPoint = cap.dedupe === "idempotency-key" ? "COMMIT" : cap.statement;
    const res = await withFaults({ statement: { match: commitPoint, action: "drop-after" } }, () => send(call()));
    expect(res.status, res.text).toBe(504);
    expect(res.json.type).toBe("/problems/outcome-unknown");
    await settled();
    expect(await cap.applied(q, tag)).toBe(1);
    const again = await send(call());
    expect(cap.ok).toContain(again.status);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await cap.applied(q, tag)).toBe(1);
  });

  it.runIf(cap.dedupe === "idempotency-key")("cut inside the keyed transaction → 503, nothing kept; the retry runs afresh", async () => {
    const key = await newKey(cap);
    const tag = unique("t");
    const call = retryable(cap, key, tag);
    const res = await withFaults({ statement: { match: cap.statement, action: "drop-after" } }, () => send(call()));
    expect(res.status, res.text).toBe(503);
    await settled();
    expect(await cap.applied(q, tag)).toBe(0);
    const again = await send(call());
    expect(cap.ok).toContain(again.status);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await cap.applied(q, tag)).toBe(1);
  });
});

describe("in workerd", () => {
  it("/health answers 503 + Retry-After when the database goes silent, 200 again when it is back", async () => {
    const res = await withFaults({ statement: { match: "SELECT 1", action: "stall-before" } }, () => client(ownSocket(worker), null)("GET", "/health"));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).not.toBeNull();
    expect((await client(ownSocket(worker), null)("GET", "/health")).status).toBe(200);
  });
});
