// Peer designs live as SQL files in this folder, split into named statements by `-- name: x` lines.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PEERS_DIR = dirname(fileURLToPath(import.meta.url));

/** Splits SQL text at `-- name: <name>` lines into {name: statement}; text before the first name is ignored. */
export function sqlSections(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current: string | undefined;
  const lines: string[] = [];
  const flush = () => {
    if (current !== undefined) out[current] = lines.join("\n").trim();
    lines.length = 0;
  };
  for (const line of text.split("\n")) {
    const m = /^--\s*name:\s*([\w-]+)\s*$/.exec(line);
    if (m) {
      flush();
      current = m[1];
    } else if (current !== undefined && !/^\s*--/.test(line)) {
      lines.push(line);
    }
  }
  flush();
  return out;
}

export async function peerSql(file: string): Promise<Record<string, string>> {
  return sqlSections(await readFile(join(PEERS_DIR, file), "utf8"));
}
