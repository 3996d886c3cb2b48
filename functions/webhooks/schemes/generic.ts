// Any other sender that signs with an HMAC (scheme "hmac"): the source's settings say which header
// carries the signature (after an optional prefix such as "sha256="), the hash (SHA-256, SHA-1,
// SHA-512), hex or base64, what is signed (a template around {body}, with {timestamp} and {id}), the
// timestamp header if the sender signs one, and where the id and the event type are (a header or a
// JSON pointer into the body). The secret is the key as UTF-8.
import { fromBase64, fromHex, type HmacSettings, type Place, pointerValue, required, type Scheme, seconds, unverified, utf8 } from "./scheme";

const HASH = { sha256: "SHA-256", sha1: "SHA-1", sha512: "SHA-512" } as const;

function place(p: Place, payload: unknown, req: { header(n: string): string | undefined }): string | undefined {
  return "header" in p ? req.header(p.header) || undefined : pointerValue(payload, p.pointer);
}

const describe = (p: Place) => ("header" in p ? p.header : `the body at ${p.pointer}`);

export const generic: Scheme = {
  key: utf8,
  signed(req, source) {
    const cfg = source.hmac as HmacSettings;
    const h = required(req, cfg.header);
    const ts = cfg.timestamp_header ? required(req, cfg.timestamp_header) : undefined;
    const id = "header" in cfg.id && cfg.signed.includes("{id}") ? required(req, cfg.id.header) : undefined;
    if (!h.value.startsWith(cfg.prefix)) throw unverified("malformed-header", `${cfg.header} must start with ${JSON.stringify(cfg.prefix)}.`, h.name);
    const raw = h.value.slice(cfg.prefix.length).trim();
    const sig = cfg.encoding === "hex" ? fromHex(raw) : fromBase64(raw);
    if (!sig) throw unverified("malformed-header", `${cfg.header} must carry a ${cfg.encoding} signature.`, h.name);
    const fill = (text: string) => text.replaceAll("{timestamp}", ts?.value ?? "").replaceAll("{id}", id?.value ?? "");
    const at = cfg.signed.indexOf("{body}");
    return {
      prefix: fill(cfg.signed.slice(0, at)),
      suffix: fill(cfg.signed.slice(at + "{body}".length)),
      signatures: [sig],
      hash: HASH[cfg.algorithm],
      header: h.name,
      timestamp: ts ? { seconds: seconds(ts.value, ts.name), header: ts.name } : null,
    };
  },
  identify(payload, req, source) {
    const cfg = source.hmac as HmacSettings;
    return {
      kind: "event",
      id: place(cfg.id, payload, req),
      idFrom: describe(cfg.id),
      type: cfg.event_type ? place(cfg.event_type, payload, req) : undefined,
    };
  },
};
