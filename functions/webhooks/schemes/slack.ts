// Slack (Events API): `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<ts>:<body>">` keyed with the
// app's signing secret (UTF-8), X-Slack-Request-Timestamp within 5 minutes (@slack/bolt's
// verifySlackRequest). Deduplicated on the body's event_id, which Slack's retries (X-Slack-Retry-Num)
// keep; the event type is event.type. The url_verification request is verified, answered with its
// `challenge` and not stored. app_rate_limited notices carry no event_id: their id is made of the app
// and the minute they name.
import { field, fromHex, required, type Scheme, seconds, unverified, utf8 } from "./scheme";

export const slack: Scheme = {
  key: utf8,
  signed(req) {
    const h = required(req, "X-Slack-Signature");
    const ts = required(req, "X-Slack-Request-Timestamp");
    const sig = h.value.startsWith("v0=") ? fromHex(h.value.slice(3)) : undefined;
    if (!sig) throw unverified("malformed-header", "X-Slack-Signature must be v0=<hex>.", h.name);
    const s = seconds(ts.value, ts.name);
    return { prefix: `v0:${ts.value}:`, suffix: "", signatures: [sig], hash: "SHA-256", header: h.name, timestamp: { seconds: s, header: ts.name } };
  },
  identify(payload) {
    const type = field(payload, "type");
    if (type === "url_verification") return { kind: "handshake", answer: { challenge: field(payload, "challenge") ?? "" } };
    if (type === "app_rate_limited") {
      const p = payload as Record<string, unknown>;
      return { kind: "event", id: `app_rate_limited:${String(p.api_app_id)}:${String(p.minute_rate_limited)}`, idFrom: "event_id", type };
    }
    const event = (payload as Record<string, unknown> | null)?.event;
    return { kind: "event", id: field(payload, "event_id"), idFrom: 'the body\'s "event_id"', type: field(event, "type") ?? type };
  },
};
