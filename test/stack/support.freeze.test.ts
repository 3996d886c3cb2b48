// The freeze suites (test/across/faults.freeze.test.ts, …) trust signalPostgres: after a SIGSTOP not one
// Postgres process may still run. A postmaster forks a backend for every new session, so a burst
// keeps it forking; here a shell that forks without pause stands in for it (its pid written where
// a postmaster's would be), and no child of it may be left running after the freeze.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listProcesses, processState } from "../../dev/proc";
import { signalPostgres } from "../support";

const ROUNDS = 20;

describe.skipIf(process.platform !== "linux")("signalPostgres", () => {
  it(`SIGSTOP leaves no process of the tree running, though its root is forking at that moment (${ROUNDS} rounds)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "admit-signal-"));
    chmodSync(dir, 0o755);
    const running: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // Bounded: at most 400 children, each gone within 30 s even if this suite dies.
        const forker = spawn("sh", ["-c", "i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); done; wait"], { stdio: "ignore", detached: true });
        const root = forker.pid as number;
        try {
          await new Promise((r) => setTimeout(r, 10 + (round % 5) * 3));
          writeFileSync(join(dir, "postmaster.pid"), `${root}\n`);
          signalPostgres(dir, "SIGSTOP");
          // Whatever the fork in flight produced has had time to be counted.
          await new Promise((r) => setTimeout(r, 30));
          const kids = (listProcesses() ?? []).filter((p) => p.ppid === root);
          for (const k of kids) {
            const state = processState(k.pid);
            if (state !== null && !["T", "t", "Z", "X"].includes(state)) running.push(`round ${round}: child ${k.pid} is ${state}`);
          }
          expect(processState(root)).toBe("T");
          signalPostgres(dir, "SIGCONT");
          expect(["S", "R", "D"]).toContain(processState(root));
        } finally {
          process.kill(-root, "SIGKILL");
        }
      }
      expect(running).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
