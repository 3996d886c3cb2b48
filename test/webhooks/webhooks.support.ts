// Helpers of the webhook suites: Standard Webhooks secrets and signed headers, made with the same
// `standardwebhooks` package a sender would use, and the database clock the receiver judges by.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { sql } from "../support";

export function newSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}

/** Standard Webhooks headers for `body`, signed with each secret in turn (several = key rotation). */
export function signedHeaders(secrets: string[], id: string, timestampS: number, body: string): Record<string, string> {
  const at = new Date(timestampS * 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampS),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign(id, at, body)).join(" "),
  };
}

/** Seconds since the epoch on the database clock, the clock the receiver judges timestamps by. */
export async function dbNowS(db: string): Promise<number> {
  const [{ s }] = await sql<{ s: number }>(db, "SELECT extract(epoch FROM now())::int AS s");
  return s;
}
