// What every command shares: the exit codes, the one-line error, the output for people (tables) and
// for machines (--json), and where Admit is (--url/ADMIT_URL, --token/ADMIT_TOKEN).

/**
 * Exit codes (documented in the README and `admit --help`): 0 done; 1 Admit answered a problem or an
 * operation failed; 2 a negative answer that is not an error (`policies plan`: changes pending,
 * `check`: denied); 64 bad usage (an unknown command or flag, a missing or bad value, a bad URL);
 * 65 a bad input file (a policies file that is not JSON or does not follow the schema);
 * 69 Admit (or the database) cannot be reached; 77 the token was refused (401) or lacks a scope (403).
 */
export const EXIT = { ok: 0, failed: 1, negative: 2, usage: 64, data: 65, unavailable: 69, noperm: 77 } as const;

/** A failure to report as one line and an exit code (never a stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

export interface Output {
  json: boolean;
  line(s: string): void;
}

/** Rows as an aligned text table (people), or as JSON (machines, --json). */
export function table(out: Output, rows: Record<string, unknown>[], columns: string[], raw: unknown = rows): void {
  if (out.json || !rows.length) {
    out.line(out.json ? JSON.stringify(raw, null, 2) : "(none)");
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : Array.isArray(v) ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v));
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const fmt = (r: string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  out.line(fmt(columns.map((c) => c.toUpperCase())));
  for (const r of cells) out.line(fmt(r));
}

/** One object as `field  value` lines (people), or as JSON. */
export function record(out: Output, obj: Record<string, unknown>): void {
  if (out.json) {
    out.line(JSON.stringify(obj, null, 2));
    return;
  }
  const width = Math.max(...Object.keys(obj).map((k) => k.length));
  const cell = (v: unknown) => (v === null || v === undefined ? "-" : Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v));
  for (const [k, v] of Object.entries(obj)) out.line(`${k.padEnd(width)}  ${cell(v)}`);
}

/** Admit's base URL, checked: an http(s) URL, no trailing slash. */
export function adminUrl(flag: string | undefined, env: Record<string, string | undefined>): string {
  const raw = flag ?? env.ADMIT_URL;
  if (!raw) throw new CliError("no Admit URL: pass --url https://… or set ADMIT_URL", EXIT.usage);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url ${JSON.stringify(raw)} is not a URL: give Admit's address, e.g. https://admit.example.com`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`--url ${JSON.stringify(raw)} is not an http(s) URL`, EXIT.usage);
  return url.toString().replace(/\/+$/, "");
}

export function adminToken(flag: string | undefined, env: Record<string, string | undefined>): string {
  const t = flag ?? env.ADMIT_TOKEN;
  if (!t) throw new CliError("no token: pass --token or set ADMIT_TOKEN (the API token or a key, admit_…)", EXIT.usage);
  return t;
}

/** A whole number ≥ min from a flag, or a usage error naming the flag. */
export function intFlag(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new CliError(`--${name} ${JSON.stringify(v)} is not a whole number ≥ ${min}`, EXIT.usage);
  return Number(v);
}
