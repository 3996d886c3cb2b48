// The decision log's level and sampling (docs/observability.md): which lines are written, at what
// rate, to which console method. Each capability builds its own line (one JSON object, the shape
// Workers Logs and Logpush index field by field) and asks here whether to write it.
import type { Bindings } from "./env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, off: 100 } as const;
export type LogLevel = Exclude<keyof typeof LEVELS, "off">;

function logLevel(env: Bindings | undefined): number {
  const v = (env?.DECISION_LOG_LEVEL ?? "warn").toLowerCase();
  return v in LEVELS ? LEVELS[v as keyof typeof LEVELS] : LEVELS.warn;
}

function sampleRate(env: Bindings | undefined): number {
  const n = Number(env?.DECISION_LOG_SAMPLE ?? "1");
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 1;
}

/** The sample rate a line of `level` is written at now; null: this line is not written (below DECISION_LOG_LEVEL, or not sampled). */
export function logSample(env: Bindings | undefined, level: LogLevel): number | null {
  if (LEVELS[level] < logLevel(env)) return null;
  const rate = sampleRate(env);
  if (rate < 1 && Math.random() >= rate) return null;
  return rate;
}

/** Writes a line the sampling let through: console.warn at warn and above, else console.log. */
export function writeLog(level: LogLevel, line: Record<string, unknown>): void {
  if (level === "warn" || level === "error") console.warn(line);
  else console.log(line);
}
