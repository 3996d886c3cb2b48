// The inventory view: for an item and a date range, one row per night (a sold-out night marked).
import { api } from "./api.js";
import { $, el, table } from "./dom.js";
import { utcDateOf } from "./fields.js";

export async function showInventory() {
  const item = $("inv-item").value;
  const a = await api(`/v1/inventory/${encodeURIComponent(item)}/availability`, { from: utcDateOf($("inv-from")), to: utcDateOf($("inv-to")) });
  const grid = table(
    el("table", { id: "inv-grid" }),
    `${item}: nights ${a.from} to ${a.to} (check-out day excluded)`,
    ["Night", "Capacity", "Booked", "Held", "Available"],
    a.nights.map((n) => [n.date, n.capacity, n.booked, n.held, el("span", { class: n.available === 0 && n.capacity > 0 ? "full" : undefined }, n.available)]),
  );
  $("inv-out").replaceChildren(grid);
}
