// The webhooks view: a source's events with counts by status, lapsed claims highlighted; for a source
// that forwards, where to, whether a 410 stopped it, and its events' delivery (failed ones — the dead
// letters — highlighted).
import { all } from "./api.js";
import { $, el, stat, table, truncatedNote } from "./dom.js";
import { utc } from "./format.js";

/** The sources as last read, by name (their forward settings). */
const known = new Map();

export async function loadSources() {
  const sources = await all("/v1/webhooks/sources", { limit: 1000 });
  known.clear();
  for (const s of sources) known.set(s.source, s);
  const select = $("wh-source");
  const chosen = select.value;
  select.replaceChildren(...sources.map((s) => el("option", { value: s.source }, s.source)));
  if (sources.some((s) => s.source === chosen)) select.value = chosen;
  if (!sources.length) $("wh-out").replaceChildren(el("p", { class: "muted" }, "No webhook sources registered."));
  else await showEvents();
}

export async function showEvents() {
  const source = $("wh-source").value;
  if (!source) return;
  // At most 1 000: each event carries its payload (up to 64 KiB), which this view does not show.
  const events = await all(`/v1/webhooks/${encodeURIComponent(source)}/events`, { status: $("wh-status").value, limit: 1000 }, 1000);
  // A lapsed claim: claimed before, never acknowledged, and its claim has run out.
  const lapsed = (e) => e.status === "received" && e.claims > 0;
  const counts = { received: 0, claimed: 0, processed: 0 };
  for (const e of events) counts[e.status]++;
  const forward = known.get(source)?.forward ?? null;
  const deliveries = { pending: 0, delivered: 0, failed: 0 };
  for (const e of events) if (e.delivery) deliveries[e.delivery.state]++;
  const failed = (e) => e.delivery?.state === "failed";
  const delivery = (e) =>
    !e.delivery
      ? "—"
      : failed(e)
        ? el("span", { class: "badge lapsed" }, `failed after ${e.delivery.attempts}`)
        : `${e.delivery.state}${e.delivery.in_flight ? " (in flight)" : ""}, ${e.delivery.attempts} attempt${e.delivery.attempts === 1 ? "" : "s"}`;
  $("wh-out").replaceChildren(
    truncatedNote(events, "events") ?? "",
    forward
      ? el(
          "p",
          { id: "wh-forward" },
          `Forwarded to ${forward.url ?? `the Worker bound as ${forward.binding}`}${forward.ordered ? ", in order per ordering value" : ""}.`,
          forward.stopped_at ? el("strong", { class: "full" }, ` Stopped ${utc(forward.stopped_at)}: ${forward.stopped_reason}`) : "",
        )
      : "",
    forward
      ? el(
          "dl",
          { class: "stats", "aria-label": `Forwarding of ${source}` },
          stat("Delivery pending", deliveries.pending, "wh-pending"),
          stat("Delivered", deliveries.delivered, "wh-delivered"),
          stat("Failed (dead letters)", deliveries.failed, "wh-failed"),
        )
      : "",
    el(
      "dl",
      { class: "stats", "aria-label": `Events of ${source} by status` },
      stat("Received", counts.received, "wh-received"),
      stat("Claimed", counts.claimed, "wh-claimed"),
      stat("Processed", counts.processed, "wh-processed"),
      stat("Lapsed claims", events.filter(lapsed).length, "wh-lapsed"),
    ),
    table(
      el("table", { id: "wh-events" }),
      `Events of ${source} (${events.truncated ? `the first ${events.length}` : events.length}); lapsed claims${forward ? " and failed deliveries" : ""} are highlighted`,
      ["Webhook id", "Status", "Claims", "Received", "Claim expires", "Processed", ...(forward ? ["Delivery"] : [])],
      events.map((e) => [
        e.webhook_id,
        lapsed(e) ? el("span", { class: "badge lapsed" }, "lapsed claim") : e.status,
        e.claims,
        utc(e.received_at),
        e.claim_expires_at ? utc(e.claim_expires_at) : "—",
        e.processed_at ? utc(e.processed_at) : "—",
        ...(forward ? [delivery(e)] : []),
      ]),
      (i) => (lapsed(events[i]) || failed(events[i]) ? "lapsed" : undefined),
    ),
  );
}
