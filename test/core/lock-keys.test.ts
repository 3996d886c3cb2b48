import { describe, expect, it } from "vitest";
import { fnv64, lockKey } from "../../functions/core/lock-keys";

/** FNV-1a 64 straight from its definition, over TextEncoder's UTF-8 bytes, for comparison. */
function reference(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, h).toString();
}

describe("fnv64 lock keys", () => {
  it.each([
    ["223 345", "3755351481708176604"], // seed 000's pg_advisory_xact_lock argument
    ["", "-3750763034362895579"],
    ["a", "-5808556873153909620"],
    ["é", "775207407765167617"],
  ])("golden vector %j → %s", (input, expected) => {
    expect(fnv64(input)).toBe(expected);
  });

  it("hashes UTF-8 bytes, matching the definition on multi-byte text", () => {
    const samples = ["日本語", "😀 emoji", "invoice_gen/SUB-1234", "x".repeat(1000), "a/b%2Fc", "'; DROP TABLE reservations; --"];
    for (let i = 0; i < 200; i++) {
      samples.push(String.fromCodePoint(...Array.from({ length: 1 + (i % 17) }, (_, j) => ((i * 7919 + j * 104729) % 0x10ffff) & ~0xf800 || 65)));
    }
    for (const s of samples.filter((x) => x.isWellFormed())) expect(fnv64(s), JSON.stringify(s)).toBe(reference(s));
  });

  it("stays within signed int64, the range of Postgres bigint", () => {
    for (let i = 0; i < 1000; i++) {
      const v = BigInt(fnv64(`k${i}`));
      expect(v >= -(2n ** 63n) && v < 2n ** 63n).toBe(true);
    }
  });

  it("namespaces keys so capabilities never share a lock by accident", () => {
    expect(lockKey("reservation", "223 345")).toBe(fnv64("reservation/223 345"));
    expect(lockKey("reservation", "x")).not.toBe(lockKey("lock", "x"));
  });
});
