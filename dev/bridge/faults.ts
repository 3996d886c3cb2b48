// Fault mode (tests): which new connections get the faults set last, and the seeded random cuts.
import type { Faults } from "./types";

/** The faults set by `setFaults`, handed out one new connection at a time. */
export class FaultPlans {
  private faults: Faults | undefined;
  private left = Infinity;
  private rng = mulberry32(0);

  /** Faults for connections opened from now on; `undefined` turns fault mode off. */
  set(faults: Faults | undefined): void {
    this.faults = faults;
    this.left = faults?.connections ?? Infinity;
    this.rng = mulberry32(faults?.dropAtRandom?.seed ?? Date.now());
  }

  /** The fault plan for one new connection (an HTTP SQL request counts as one), if any. */
  take(): Faults | undefined {
    const plan = this.faults && this.left > 0 ? this.faults : undefined;
    if (plan) this.left--;
    return plan;
  }

  /** Where `plan` cuts a connection at random, in bytes (both directions counted); Infinity for nowhere. */
  randomCut(plan: Faults): number {
    return plan.dropAtRandom ? Math.floor(this.rng() * plan.dropAtRandom.maxBytes) : Infinity;
  }
}

/** A small seeded PRNG, so a random cut can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
