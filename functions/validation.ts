// Input schemas shared by every capability, and the hook that turns zod failures into 422 problems.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { problem } from "./errors";

/** A 1–max character string that Postgres can store and the lock hash reads as the same bytes. */
export function name(max = 200) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.isWellFormed(), "must be well-formed Unicode (no lone surrogates)")
    .refine((s) => !s.includes("\u0000"), "must not contain NUL characters");
}

function parsesToValidInstant(s: string): boolean {
  const ms = Date.parse(s);
  return Number.isFinite(ms) && new Date(ms).getUTCFullYear() >= 1 && new Date(ms).getUTCFullYear() <= 9999;
}

/** RFC 3339 date-time with a `Z` or numeric offset, years 0001–9999. */
export const Rfc3339 = z.iso
  .datetime({ offset: true, error: "must be an RFC 3339 date-time with offset, e.g. 2021-01-01T14:45:00Z" })
  .refine(parsesToValidInstant, "must be a real instant between years 0001 and 9999")
  .openapi({ format: "date-time", example: "2021-01-01T14:45:00Z" });

interface HookResult {
  success: boolean;
  target?: string;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}

/** `defaultHook` of the app: every validation failure is a 422 with `errors: [{path, message}]`. */
export function validationHook(result: HookResult, _c: Context): void {
  if (result.success) return;
  const where = result.target === "json" ? "body" : result.target ?? "input";
  const errors = (result.error?.issues ?? []).map((i) => ({
    in: where,
    path: i.path.map(String).join(".") || "(root)",
    message: i.message,
  }));
  const detail = errors.map((e) => `${e.in} ${e.path}: ${e.message}`).join("; ");
  throw problem(422, "validation", "Validation failed", detail, { errors });
}
