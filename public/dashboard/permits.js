// The leases and semaphores view, refreshed live while it is open.
import { all, api } from "./api.js";
import { $, el, table, truncatedNote } from "./dom.js";
import { timeLeft, utc } from "./format.js";
import { startLive } from "./live.js";
import { run } from "./problem.js";

/** Holders a semaphore shows in the list (the API's most); "Show all" loads the semaphore's own GET (its first 1 000 holders, the API's most for one). */
const LIST_HOLDERS = 100;
const allHolders = new Set();

async function loadPermits() {
  const [leases, listed] = await Promise.all([
    all("/v1/locks", { prefix: $("pm-prefix").value, limit: 1000 }),
    all("/v1/semaphores", { limit: 1000, holders: LIST_HOLDERS }),
  ]);
  // A semaphore whose every holder was asked for: its own GET (up to 1 000 of them; more_holders says how many more).
  const semaphores = await Promise.all(
    listed.map((s) => (allHolders.has(s.name) && s.more_holders > 0 ? api(`/v1/semaphores/${encodeURIComponent(s.name)}`) : s)),
  );
  table(
    "pm-leases",
    leases.truncated ? `the first ${leases.length} held (more are)` : `${leases.length} held`,
    ["Key", "Holder", "Fencing token", "Claimed", "Time left"],
    leases.map((l) => [l.key, l.holder, l.fencing_token, utc(l.claimed_at), timeLeft(l.expires_at)]),
  );
  const toggle = (name, label) => el("button", { type: "button", class: "holders-toggle", "data-semaphore": name }, label);
  $("pm-semaphores").replaceChildren(
    ...(semaphores.length ? [] : [el("p", { class: "muted" }, "No semaphores.")]),
    truncatedNote(listed, "semaphores") ?? "",
    ...semaphores.map((s) =>
      el(
        "div",
        { class: "scroll" },
        table(
          el("table", { class: "semaphore" }),
          `${s.name}: ${s.in_use} of ${s.permits} in use, ${s.available} free`,
          ["Slot", "Holder", "Fencing token", "Claimed", "Time left"],
          s.holders.map((h) => [h.slot, h.holder, h.fencing_token, utc(h.claimed_at), timeLeft(h.expires_at)]),
        ),
        s.more_holders > 0
          ? el(
              "p",
              { class: "more-holders" },
              `The first ${s.holders.length} holders by slot; ${s.more_holders} more. `,
              toggle(s.name, `Show all ${s.in_use}`),
            )
          : allHolders.has(s.name) && s.holders.length > LIST_HOLDERS
            ? el("p", { class: "more-holders" }, `All ${s.holders.length} holders. `, toggle(s.name, `Show the first ${LIST_HOLDERS}`))
            : undefined,
      ),
    ),
  );
  $("pm-updated").textContent = `Updated ${utc(new Date().toISOString())}`;
}

/** The countdowns, and a reload every 2 s while "Refresh every 2 s" is ticked. */
export function startPermitsLive() {
  startLive($("pm-live").checked ? () => run(loadPermits) : undefined);
}

export async function openPermits() {
  await loadPermits();
  startPermitsLive();
}

/** A click on a semaphore's "Show all" / "Show the first 100" button: that semaphore's holders, all or the first. */
export function toggleHolders(e) {
  const button = e.target.closest("button.holders-toggle");
  if (!button) return;
  const name = button.dataset.semaphore;
  if (allHolders.has(name)) allHolders.delete(name);
  else allHolders.add(name);
  run(loadPermits);
}
