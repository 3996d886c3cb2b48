// The suites' own setup helpers: a setup step that never finishes fails with its name, not a bare hook timeout.
import { describe, expect, it } from "vitest";
import { boundedStep } from "./support";

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
