// A client that hangs up in the middle of its body, in the real Workers runtime (`wrangler dev`):
// the body guard (functions/http/body.ts) is what reads the body, and there workerd's read fails
// ("Network connection lost"). That is the client's disconnection — nothing ran, no one is waiting
// for an answer — so the operator's log must not show it as an error of the Worker.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import { freshDatabase, SUITE_BUDGET_MS, sql, TOKEN } from "../support";

let db: string;
let worker: WranglerDev;
/** Every line the runtime (wrangler and workerd) printed, in order. */
const output: string[] = [];

beforeAll(async () => {
  db = await freshDatabase("disconnect_runtime");
  worker = await startWranglerDev({
    vars: { DATABASE_URL: db, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, DB_BUDGET_MS: SUITE_BUDGET_MS },
    log: (line) => output.push(line),
  });
}, 120_000);
afterAll(async () => worker?.stop());

/**
 * workerd's own report of a write to a descriptor whose other end is gone: "✘ [ERROR]
 * kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::write(fd, …): Broken
 * pipe". It was printed once in a clean-clone CI run (2026-11-27, at cd445e2). The test passed in
 * every run before it, and in 4 runs after it with two CPU burners on the machine's 2 cores. 150
 * more hang-ups in wrangler dev did not print it either: 30 each, mid-body after 300 ms and at once,
 * by reset at once and after 5 ms, and after the whole body. It names no
 * request and no code of Admit's: the runtime writing an answer, or a log line, to a pipe that
 * closed. Every line from Admit's own code (the Worker's console, an uncaught exception) still fails
 * the test.
 */
const RUNTIME_WRITE_FAILED = /^✘ \[ERROR\] kj::getCaughtExceptionAsKj\(\) = kj\/async-io-unix\.c\+\+:\d+: disconnected: ::write\(fd, .*\): Broken pipe$/;

/** Sends a request head promising `declared` bytes of body, then `sent` of them, then closes the connection. */
function hangUpMidBody(path: string, declared: number, sent: string): Promise<void> {
  const { hostname, port } = new URL(worker.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${sent}`,
      );
      // Long enough for the Worker to start reading the body, then gone.
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 300);
    });
    socket.on("error", reject);
  });
}

describe("a client hanging up mid-body in workerd", () => {
  it("is not logged as an error, nothing is written, and the Worker goes on answering", async () => {
    const from = output.length;
    const resource = `disconnect-${Date.now()}`;
    const body = JSON.stringify({ resource, holder: "h", start: "2041-01-01T00:00:00Z", end: "2041-01-02T00:00:00Z" });
    for (let i = 0; i < 5; i++) await hangUpMidBody("/v1/reservations", body.length + 50, body.slice(0, 3));
    for (let i = 0; i < 3; i++) await hangUpMidBody("/v1/reservations", body.length + 50, body);
    // The Worker still answers, and the requests above have been handled (or dropped) by now.
    const health = await fetch(`${worker.url}/health`);
    expect(health.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    const printed = output.slice(from);
    const errors = printed.filter((l) => /network connection lost|uncaught|unhandled|error/i.test(l) && !RUNTIME_WRITE_FAILED.test(l));
    expect(errors, printed.join("\n")).toEqual([]);
    expect(await sql(db, "SELECT 1 FROM reservations WHERE resource = $1", [resource])).toEqual([]);
  });
});
