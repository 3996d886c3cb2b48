// Every command's flags (for parseArgs) and its --help text, in one table.
type Option = { type: "string" | "boolean"; multiple?: boolean; short?: string };

export const GLOBAL_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, Option>;

export interface Command {
  summary: string;
  usage: string;
  options: Record<string, Option>;
  /** Allowed first positionals, when the command has subcommands. */
  subcommands?: string[];
  /** How many positionals after the subcommand. */
  positionals: number;
  details: string;
}

const URL_TOKEN = `  --url URL        Admit's address (default: $ADMIT_URL)
  --token TOKEN    the API token or a key, admit_… (default: $ADMIT_TOKEN)
  --json           print JSON (for scripts) instead of a table
  -h, --help       this help`;

export const COMMANDS = {
  policies: {
    summary: "rate-limit policies as code: plan, apply, export",
    usage: "admit policies plan|apply|export [--file admit-policies.json] [--prune]",
    options: { file: { type: "string" }, prune: { type: "boolean" } },
    subcommands: ["plan", "apply", "export"],
    positionals: 0,
    details: `  plan     what apply would change; exit 0 when nothing, 2 when something
  apply    make Admit match the file (PUT, idempotent); deletes what the file does not name only with --prune
  export   Admit's policies and overrides in the file's form (stdout, or --file)
  --file FILE      the policies file (default admit-policies.json; its JSON Schema: $ADMIT_URL/policies.schema.json)
  --prune          also delete policies and overrides the file does not name
  Needs ratelimits:admin (export: ratelimits:read).`,
  },
  keys: {
    summary: "scoped API keys: create, list, show, rotate, revoke",
    usage:
      "admit keys create --name NAME --scope AREA:ACCESS [--scope …] [--names PATTERN …] [--expires-at TIME]\n       admit keys list | show ID | rotate ID [--overlap-ms MS] | revoke ID",
    options: {
      name: { type: "string" },
      scope: { type: "string", multiple: true },
      names: { type: "string", multiple: true },
      "expires-at": { type: "string" },
      "overlap-ms": { type: "string" },
    },
    subcommands: ["create", "list", "show", "rotate", "revoke"],
    positionals: 1,
    details: `  create   a key with these scopes (e.g. ratelimits:check), optionally only on names matching PATTERN (* = any run); prints its secret once
  list     every key the token may see, without secrets
  show     one key: scopes, names, expiry, its live secrets' first characters
  rotate   a new secret; the old one keeps working --overlap-ms (default 1 h)
  revoke   ends the key and every key it made
  Needs keys:admin (list, show: keys:read).`,
  },
  audit: {
    summary: "the audit log of configuration changes",
    usage: "admit audit [--target NAME] [--key KEY_ID] [--limit N]",
    options: { target: { type: "string" }, key: { type: "string" }, limit: { type: "string" } },
    positionals: 0,
    details: `  Newest first, --limit rows (default 20, at most 1000). Needs audit:read.`,
  },
  usage: {
    summary: "a rate-limit key's usage: this window, and finished windows",
    usage: "admit usage POLICY KEY [--from TIME --to TIME]",
    options: { from: { type: "string" }, to: { type: "string" } },
    positionals: 2,
    details: `  served vs attempted in the current window; with --from/--to (RFC 3339) the finished windows too. Needs ratelimits:read.`,
  },
  check: {
    summary: "one rate-limit check (spends a unit, like any check)",
    usage: "admit check POLICY[,POLICY…] KEY [--cost N]",
    options: { cost: { type: "string" } },
    positionals: 2,
    details: `  exit 0 when allowed, 2 when denied. Several policies (comma-separated) are checked all-or-nothing.
  --cost N   units to spend (default 1; 0 peeks). Needs ratelimits:check.`,
  },
  migrate: {
    summary: "apply Admit's schema (the numbered SQL files) to a Postgres database",
    usage: "admit migrate [--database-url URL] [--dir DIR]",
    options: { "database-url": { type: "string" }, dir: { type: "string" } },
    positionals: 0,
    details: `  --database-url URL   the database (default: $DATABASE_URL); on Neon, the direct (not -pooler) connection string
  --dir DIR            the migrations (default: those shipped with this version of the CLI)
  Each file once, in order, each in its own transaction under an advisory lock; an applied file that was edited is refused.
  Prints each file as it is applied. --url and --token are not used.`,
  },
} as const satisfies Record<string, Command>;

export type CommandName = keyof typeof COMMANDS;

const EXIT_CODES = `Exit codes:
  0   done
  1   Admit answered a problem, or the operation failed
  2   a "no" that is not an error: policies plan found changes; check was denied
  64  bad usage: unknown command or flag, a missing or bad value, a bad --url
  65  a bad input file: a policies file that is not JSON or does not follow its schema
  69  Admit (or the database) cannot be reached
  77  the token was refused (401) or lacks a scope or name (403)`;

/** The help of one command, or of the CLI. */
export function help(command?: CommandName): string {
  const c = command && (COMMANDS as Record<string, Command>)[command];
  if (c) return `${c.summary}\n\nUsage: ${c.usage}\n\n${c.details}\n\nOptions:\n${URL_TOKEN}\n\n${EXIT_CODES}`;
  const list = Object.entries(COMMANDS as Record<string, Command>)
    .map(([name, cmd]) => `  ${name.padEnd(9)} ${cmd.summary}`)
    .join("\n");
  return `admit: Admit's command line\n\nUsage: admit <command> [options]\n\nCommands:\n${list}\n\nOptions:\n${URL_TOKEN}\n  -v, --version    the CLI's version\n\nRun admit <command> --help for a command's own.\n\n${EXIT_CODES}`;
}
