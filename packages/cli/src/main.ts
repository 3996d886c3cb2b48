#!/usr/bin/env node
// `admit`: Admit from a terminal or a CI job. Parses the command line (node:util parseArgs, strict:
// an unknown flag is an error), runs the command, and turns every failure into one line on stderr
// and an exit code (cli.ts, EXIT); a stack trace only with ADMIT_DEBUG=1.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Api, api } from "./api.js";
import { adminToken, adminUrl, CliError, EXIT, type Output } from "./cli.js";
import { audit, check, keys, usage } from "./commands.js";
import { COMMANDS, type Command, type CommandName, GLOBAL_OPTIONS, help } from "./help.js";
import { migrateCommand } from "./migrate-command.js";
import { policies } from "./policies.js";

function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

export async function run(argv: string[], env: Record<string, string | undefined>, out: Output): Promise<number> {
  const [command, ...afterCommand] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    out.line(help(afterCommand[0] as CommandName | undefined));
    return EXIT.ok;
  }
  if (command === "--version" || command === "-v") {
    out.line(version());
    return EXIT.ok;
  }
  if (!(command in COMMANDS))
    throw new CliError(`unknown command ${JSON.stringify(command)}: one of ${Object.keys(COMMANDS).join(", ")} (admit --help)`, EXIT.usage);
  const spec: Command = COMMANDS[command as CommandName];
  let parsed: ReturnType<typeof parseArgs<{ options: typeof GLOBAL_OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: afterCommand, options: { ...GLOBAL_OPTIONS, ...spec.options }, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    const e = err as Error & { code?: string };
    const m = /'(-[^']*)'/.exec(e.message);
    const what =
      e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
        ? `unknown option ${m?.[1] ?? ""}`
        : e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE"
          ? `${m?.[1] ?? "an option"} needs a value`
          : e.message.split(". ")[0];
    throw new CliError(`admit ${command}: ${what} (admit ${command} --help)`, EXIT.usage);
  }
  const values = parsed.values as Record<string, any>;
  const positionals = parsed.positionals;
  if (values.help) {
    out.line(help(command as CommandName));
    return EXIT.ok;
  }
  const o: Output = { json: Boolean(values.json), line: out.line };
  if (spec.subcommands) {
    const sub = positionals[0];
    if (!sub || !spec.subcommands.includes(sub))
      throw new CliError(
        `admit ${command}: ${sub ? `unknown subcommand ${JSON.stringify(sub)}` : "missing subcommand"}; one of ${spec.subcommands.join(", ")} (admit ${command} --help)`,
        EXIT.usage,
      );
  }
  const wantsArgs = spec.positionals + (spec.subcommands ? 1 : 0);
  if (positionals.length > wantsArgs)
    throw new CliError(`admit ${command}: unexpected argument ${JSON.stringify(positionals[wantsArgs])} (admit ${command} --help)`, EXIT.usage);
  if (command === "migrate") return migrateCommand(values, env, o);
  // Where Admit is, read at the first call: a command's own arguments are checked first.
  let connected: Api | undefined;
  const base = () => adminUrl(values.url, env);
  const call: Api = (method, path, body) => (connected ??= api(base(), adminToken(values.token, env)))(method, path, body);
  switch (command as CommandName) {
    case "policies":
      return policies(call, base, positionals[0], { file: values.file, prune: values.prune }, o);
    case "keys":
      return keys(call, positionals[0], positionals.slice(1), values, o);
    case "audit":
      return audit(call, values, o);
    case "usage":
      return usage(call, positionals, values, o);
    case "check":
      return check(call, positionals, values, o);
  }
  return EXIT.usage;
}

// Run as the `admit` bin (or through tsx from Admit's repository).
const out: Output = { json: false, line: (s) => process.stdout.write(`${s}\n`) };
run(process.argv.slice(2), process.env, out).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (process.env.ADMIT_DEBUG === "1") console.error(err);
    const cliErr = err instanceof CliError ? err : new CliError(String((err as Error)?.message ?? err).split("\n")[0], EXIT.failed);
    process.stderr.write(`admit: ${cliErr.message}\n`);
    process.exitCode = cliErr.code;
  },
);
