// What every sender scheme provides (one file each beside this one; index.ts maps scheme → verifier),
// and the pieces they share: the rejections, header and body readers, signature decoders.

export const SCHEME_NAMES = ["standard-webhooks", "stripe", "github", "shopify", "slack", "hmac"] as const;
export type SchemeName = (typeof SCHEME_NAMES)[number];

/** The longest sender id stored as itself (longer ones are stored as their digest; a webhook-id header is refused). */
export const MAX_WEBHOOK_ID = 255;

/** Where a generic HMAC source finds a value: a request header, or an RFC 6901 JSON pointer into the body. */
export type Place = { header: string } | { pointer: string };

/** A generic HMAC source's settings (scheme "hmac"). */
export interface HmacSettings {
  /** The header carrying the signature. */
  header: string;
  algorithm: "sha256" | "sha1" | "sha512";
  encoding: "hex" | "base64";
  /** Text before the signature in the header, e.g. "sha256=" (removed before decoding). */
  prefix: string;
  /** What is signed: a template with {body} once, and optionally {timestamp} and {id}. */
  signed: string;
  /** The header with the signed Unix timestamp (seconds); null: the sender signs none. */
  timestamp_header: string | null;
  /** Where the sender's own id is (deliveries are deduplicated on it). */
  id: Place;
  /** Where the event type is; null: none. */
  event_type: Place | null;
  /** The owner's explicit choice to take an id from outside the signed bytes (a replay with a fresh id is then stored again). */
  allow_unsigned_id: boolean;
}

/** The source as a delivery needs it (admit_webhook_source_for_delivery). */
export interface DeliverySource {
  scheme: SchemeName;
  /** The current secret first, then the previous one while it is still accepted. */
  secrets: string[];
  tolerance_s: number | null;
  ordering_key: string | null;
  hmac: HmacSettings | null;
  /** Seconds within which a delivery with the same signed bytes is a duplicate whatever its id; null: none. */
  replay_window_s: number | null;
  /** The database clock, ms since the epoch: signed timestamps are judged by it. */
  now_ms: number;
}

/** A delivery as it came: its headers (case-insensitive) and raw body bytes. */
export interface Request {
  header(name: string): string | undefined;
}

export type Hash = "SHA-256" | "SHA-1" | "SHA-512";

/** Bytes WebCrypto takes. */
export type Bytes = Uint8Array<ArrayBuffer>;

/** What a request says was signed, and how. The bytes signed are prefix + body + suffix. */
export interface Signed {
  prefix: string;
  suffix: string;
  /** The signatures the request carries, decoded: one that verifies with any secret is enough. */
  signatures: Bytes[];
  hash: Hash;
  /** The header the signatures came in (named in refusals). */
  header: string;
  /** The signed timestamp (Unix seconds) and the header it came in; null: the scheme signs none. */
  timestamp: { seconds: number; header: string } | null;
}

/**
 * What a verified delivery is: its id and type (and ids the same delivery was stored under by
 * earlier versions of the scheme), or a handshake answered without storing anything.
 */
export type Identified =
  | { kind: "event"; id: string | undefined; idFrom: string; type: string | undefined; earlier?: string[] }
  | { kind: "handshake"; answer: Record<string, unknown> };

export interface Scheme {
  /** The HMAC key bytes of a stored secret. */
  key(secret: string): Bytes;
  /** Reads the signature headers; a missing or malformed one is a Rejection naming it. */
  signed(req: Request, source: DeliverySource): Signed;
  /** After verification: the sender's id and event type, or a handshake. */
  identify(payload: unknown, req: Request, source: DeliverySource): Identified;
}

/** Why a delivery was refused, as its owner sees it (`recent_rejections[].reason`, the decision log). */
export type Refusal = "unknown-source" | "missing-header" | "malformed-header" | "signature-mismatch" | "timestamp-outside-tolerance";

/**
 * Why a delivery was not verified: for the source's owner and the decision log, never for the sender
 * (every refusal is the same 401 to it). `detail` says what to fix, never what was expected.
 */
export class Rejection extends Error {
  constructor(
    readonly reason: Refusal,
    readonly detail: string,
    readonly header?: string,
  ) {
    super(detail);
  }

  /** As stored in the source's recent_rejections (the database adds `at`). */
  toJSON(): { reason: Refusal; detail: string; header?: string } {
    return { reason: this.reason, detail: this.detail, ...(this.header ? { header: this.header } : {}) };
  }
}

export function unverified(reason: Refusal, detail: string, header?: string): Rejection {
  return new Rejection(reason, detail, header);
}

/**
 * Whether a delivery's id is inside the bytes its signature covers (Standard Webhooks' webhook-id,
 * Stripe's and Slack's body; an hmac source's id in its body or in `signed` as {id}). Only then is a
 * captured delivery replayed with a fresh id still recognised as a duplicate by its id.
 */
export function signsId(scheme: SchemeName, hmac: Pick<HmacSettings, "id" | "signed"> | null | undefined): boolean {
  if (scheme === "github" || scheme === "shopify") return false;
  if (scheme !== "hmac") return true;
  return !!hmac && (!("header" in hmac.id) || hmac.signed.includes("{id}"));
}

/** A header the scheme needs; missing or empty → a Rejection naming it. */
export function required(req: Request, ...names: string[]): { name: string; value: string } {
  for (const name of names) {
    const value = req.header(name);
    if (value) return { name, value };
  }
  throw unverified("missing-header", `Send the ${names[0]} header${names.length > 1 ? ` (or ${names.slice(1).join(", ")})` : ""}.`, names[0]);
}

/** Unix seconds as a sender signs them: 1–12 digits, else a Rejection naming the header. */
export function seconds(value: string, header: string): number {
  if (!/^\d{1,12}$/.test(value)) throw unverified("malformed-header", `${header} must be integer seconds since the Unix epoch.`, header);
  return Number(value);
}

/** Strict hex → bytes; undefined when it is not hex. */
export function fromHex(s: string): Bytes | undefined {
  if (s.length === 0 || s.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(s)) return undefined;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Strict base64 (standard alphabet, padding optional) → bytes; undefined when it is not base64. */
export function fromBase64(s: string): Bytes | undefined {
  if (s.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(s)) return undefined;
  try {
    const bin = atob(s.replace(/=+$/, "").padEnd(Math.ceil(s.replace(/=+$/, "").length / 4) * 4, "="));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export const utf8 = (s: string): Bytes => new TextEncoder().encode(s);

/**
 * The value at an RFC 6901 JSON pointer, as text: a string as itself, any other JSON value as its
 * JSON text; null or absent → undefined.
 */
export function pointerValue(payload: unknown, pointer: string): string | undefined {
  let at: unknown = payload;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(token)) at = at[Number(token)];
    else if (at !== null && typeof at === "object" && !Array.isArray(at) && Object.hasOwn(at, token)) at = (at as Record<string, unknown>)[token];
    else return undefined;
  }
  if (at === null || at === undefined) return undefined;
  return typeof at === "string" ? at : JSON.stringify(at);
}

/** A top-level string field of a JSON object body, or undefined. */
export function field(payload: unknown, name: string): string | undefined {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return undefined;
  const v = (payload as Record<string, unknown>)[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}
