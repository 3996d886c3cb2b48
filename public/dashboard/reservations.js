// The reservations view: for a resource and a window, a timeline of reserved and free intervals,
// the free intervals, and every reservation including the cancelled ones.
import { all, api } from "./api.js";
import { $, el, table, truncatedNote } from "./dom.js";
import { utcMinuteOf } from "./fields.js";
import { duration, utc } from "./format.js";

export async function showReservations() {
  const resource = $("rs-resource").value;
  const from = utcMinuteOf($("rs-from"));
  const to = utcMinuteOf($("rs-to"));
  const [avail, list] = await Promise.all([
    api(`/v1/resources/${encodeURIComponent(resource)}/availability`, { from, to }),
    all("/v1/reservations", { resource, from, to, include_cancelled: "true", limit: 1000 }),
  ]);
  const t0 = Date.parse(from);
  const span = Date.parse(to) - t0;
  const pct = (iso) => `${(((Date.parse(iso) - t0) / span) * 100).toFixed(3)}%`;
  const width = (a, b) => `${(((Date.parse(b) - Date.parse(a)) / span) * 100).toFixed(3)}%`;
  const active = list.filter((r) => r.status === "active");
  const bar = el("div", {
    class: "timeline",
    role: "img",
    "aria-label": `Timeline of ${resource}: ${active.length} reserved, ${avail.free.length} free intervals`,
  });
  for (const f of avail.free) {
    const seg = el("div", { class: "seg free", title: `free ${utc(f.start)} – ${utc(f.end)}` });
    seg.style.left = pct(f.start);
    seg.style.width = width(f.start, f.end);
    bar.append(seg);
  }
  for (const r of active) {
    const s = Date.parse(r.start) < t0 ? from : r.start;
    const e = Date.parse(r.end) > t0 + span ? to : r.end;
    const seg = el("div", { class: "seg busy", title: `${r.holder}: ${utc(r.start)} – ${utc(r.end)}` }, el("span", {}, r.holder));
    seg.style.left = pct(s);
    seg.style.width = width(s, e);
    bar.append(seg);
  }
  // Cancelled reservations, as history, on a lane of their own under the timeline.
  const cancelled = list.filter((r) => r.status === "cancelled");
  const lane = el("div", { class: "timeline history", role: "img", "aria-label": `${cancelled.length} cancelled reservations (history)` });
  for (const r of cancelled) {
    const s = Date.parse(r.start) < t0 ? from : r.start;
    const e = Date.parse(r.end) > t0 + span ? to : r.end;
    const seg = el(
      "div",
      { class: "seg cancelled", title: `${r.holder} (cancelled ${utc(r.cancelled_at)}): ${utc(r.start)} – ${utc(r.end)}` },
      el("span", {}, r.holder),
    );
    seg.style.left = pct(s);
    seg.style.width = width(s, e);
    lane.append(seg);
  }
  $("rs-out").replaceChildren(
    el("h3", {}, `${resource}: ${utc(from)} – ${utc(to)}`),
    truncatedNote(list, "reservations") ?? "",
    bar,
    lane,
    el(
      "p",
      { class: "legend" },
      el("span", { class: "swatch busy" }),
      " reserved ",
      el("span", { class: "swatch free" }),
      " free ",
      el("span", { class: "swatch cancelled" }),
      " cancelled (history, lower lane)",
    ),
    table(
      el("table", { id: "rs-free" }),
      `Free intervals (${avail.free.length})`,
      ["Start", "End", "Length"],
      avail.free.map((f) => [utc(f.start), utc(f.end), duration(Date.parse(f.end) - Date.parse(f.start))]),
    ),
    table(
      el("table", { id: "rs-list" }),
      `Reservations (${active.length} active, ${list.length - active.length} cancelled)`,
      ["Holder", "Start", "End", "Status", "Cancelled at"],
      list.map((r) => [r.holder, utc(r.start), utc(r.end), r.status, r.cancelled_at ? utc(r.cancelled_at) : ""]),
      (i) => (list[i].status === "cancelled" ? "cancelled" : undefined),
    ),
  );
}
