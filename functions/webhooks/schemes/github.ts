// GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` keyed with the webhook's secret
// (UTF-8; @octokit/webhooks-methods' sign). No timestamp is signed. Deduplicated on X-GitHub-Delivery
// (a redelivery keeps it); the event type is X-GitHub-Event. The `ping` GitHub sends when a hook is
// created is verified, answered 200 and not stored. The SHA-1 X-Hub-Signature is not accepted.
import { fromHex, required, type Scheme, unverified, utf8 } from "./scheme";

export const github: Scheme = {
  key: utf8,
  signed(req) {
    const h = required(req, "X-Hub-Signature-256");
    required(req, "X-GitHub-Delivery");
    required(req, "X-GitHub-Event");
    const sig = h.value.startsWith("sha256=") ? fromHex(h.value.slice("sha256=".length)) : undefined;
    if (!sig) throw unverified("malformed-header", "X-Hub-Signature-256 must be sha256=<hex>.", h.name);
    return { prefix: "", suffix: "", signatures: [sig], hash: "SHA-256", header: h.name, timestamp: null };
  },
  identify(_payload, req) {
    const type = req.header("X-GitHub-Event");
    if (type === "ping") return { kind: "handshake", answer: { status: "acknowledged", event_type: "ping", stored: false } };
    return { kind: "event", id: req.header("X-GitHub-Delivery"), idFrom: "X-GitHub-Delivery", type };
  },
};
