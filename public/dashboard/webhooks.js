// The webhooks view: a source's events with counts by status, lapsed claims highlighted.
import { all } from "./api.js";
import { $, el, stat, table, truncatedNote } from "./dom.js";
import { utc } from "./format.js";

export async function loadSources() {
  const sources = await all("/v1/webhooks/sources", { limit: 1000 });
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
  $("wh-out").replaceChildren(
    truncatedNote(events, "events") ?? "",
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
      `Events of ${source} (${events.truncated ? `the first ${events.length}` : events.length}); lapsed claims are highlighted`,
      ["Webhook id", "Status", "Claims", "Received", "Claim expires", "Processed"],
      events.map((e) => [
        e.webhook_id,
        lapsed(e) ? el("span", { class: "badge lapsed" }, "lapsed claim") : e.status,
        e.claims,
        utc(e.received_at),
        e.claim_expires_at ? utc(e.claim_expires_at) : "—",
        e.processed_at ? utc(e.processed_at) : "—",
      ]),
      (i) => (lapsed(events[i]) ? "lapsed" : undefined),
    ),
  );
}
