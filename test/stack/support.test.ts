// The suites' own setup helpers: a setup step that never finishes fails with its name, not a bare hook timeout.
import { describe, expect, it } from "vitest";
import { boundedStep, waitForRoomInWindow } from "../support";

describe("boundedStep", () => {
  it("passes a step's result or error through", async () => {
    expect(await boundedStep("quick", 1_000, async () => 42)).toBe(42);
    await expect(boundedStep("failing", 1_000, async () => Promise.reject(new Error("its own error")))).rejects.toThrow("its own error");
  });

  it("a step that never settles fails with its name and bound, well before the hook's timeout", async () => {
    await expect(boundedStep("suite x: a fresh database", 50, () => new Promise(() => {}))).rejects.toThrow(
      /^suite x: a fresh database did not finish within 50 ms/,
    );
  });
});

describe("waitForRoomInWindow", () => {
  const MIN = 60_000;
  const start = Date.parse("2026-11-27T12:00:00Z"); // a minute's start since the epoch
  it("no wait while enough of the window is left", () => {
    expect(waitForRoomInWindow(MIN, 15_000, start)).toBe(0);
    expect(waitForRoomInWindow(MIN, 15_000, start + 45_000)).toBe(0);
  });
  it("with less left, waits until 1 s into the next window", () => {
    expect(waitForRoomInWindow(MIN, 15_000, start + 45_001)).toBe(15_999);
    expect(waitForRoomInWindow(MIN, 15_000, start + 59_999)).toBe(1_001);
    expect(waitForRoomInWindow(3_600_000, 180_000, start + 3_500_000)).toBe(101_000);
  });
});
