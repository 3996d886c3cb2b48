// Where the local stack keeps things, and the small helpers every dev script shares.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * Git-ignored: embedded Postgres data and the dev token, kept across restarts. ADMIT_DATA_DIR puts
 * them elsewhere (the lifecycle tests run `npm start` on a throwaway one, never on a user's .data).
 */
export const DATA_DIR = process.env.ADMIT_DATA_DIR ? resolve(process.env.ADMIT_DATA_DIR) : join(ROOT, ".data");
const DEV_TOKEN_FILE = join(DATA_DIR, "dev-api-token");

/** API_TOKEN if set, else the dev token kept in .data/ (made on first use, so curl commands keep working). */
export function devToken({ create }: { create: boolean }): string | undefined {
  if (process.env.API_TOKEN) return process.env.API_TOKEN;
  if (existsSync(DEV_TOKEN_FILE)) return readFileSync(DEV_TOKEN_FILE, "utf8").trim();
  if (!create) return undefined;
  const token = "dev_" + randomBytes(18).toString("base64url");
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(DEV_TOKEN_FILE, token + "\n", { mode: 0o600 });
  return token;
}

/**
 * A loopback port free right now, chosen below Linux's ephemeral range (32768–60999), so the
 * thousands of outgoing connections a test run makes cannot take it before its server binds it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canBind(candidate)) return candidate;
  }
  return bindAny(); // a crowded range: let the kernel choose
}

/** Whether a server could listen on 127.0.0.1:`port` right now. */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

function bindAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
