// The dashboard (/dashboard, docs/dashboard.md): six views over this Worker's /v1 API, no framework,
// each a module of its own (ratelimits.js, reservations.js, inventory.js, permits.js, webhooks.js,
// access.js). This entry opens the view the URL names, holds the token, and wires the forms.

import { loadAccess, orForbidden, showAudit } from "./access.js";
import { TOKEN_KEY } from "./api.js";
import { dropChart } from "./chart.js";
import { $ } from "./dom.js";
import { watchFields } from "./fields.js";
import { toUtcDate, toUtcMinute } from "./format.js";
import { showInventory } from "./inventory.js";
import { stopLive } from "./live.js";
import { openPermits, startPermitsLive, toggleHolders } from "./permits.js";
import { clearProblem, run } from "./problem.js";
import { loadRateLimits, showPolicyKeys, showUsage } from "./ratelimits.js";
import { showReservations } from "./reservations.js";
import { loadSources, showEvents } from "./webhooks.js";

const VIEWS = {
  ratelimits: loadRateLimits,
  reservations: async () => $("rs-resource").value && showReservations(),
  inventory: async () => $("inv-item").value && showInventory(),
  permits: openPermits,
  webhooks: loadSources,
  access: loadAccess,
};

function currentView() {
  const name = location.hash.slice(1);
  return name in VIEWS ? name : "ratelimits";
}

function openView() {
  const name = currentView();
  stopLive();
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.dataset.view !== name;
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.title = `${document.querySelector(`#view-${name} h2`).textContent} · Admit dashboard`;
  return run(VIEWS[name]);
}

function defaults() {
  const day = new Date();
  day.setUTCHours(0, 0, 0, 0);
  $("rs-from").value = toUtcMinute(day);
  $("rs-to").value = toUtcMinute(new Date(day.getTime() + 86_400_000));
  $("inv-from").value = toUtcDate(day);
  $("inv-to").value = toUtcDate(new Date(day.getTime() + 7 * 86_400_000));
}

/** Takes off the screen everything read with the previous token, so a new key never shows what only the old one could read. */
function forgetShown() {
  stopLive();
  dropChart();
  clearProblem();
  for (const id of [
    "rl-policies",
    "rl-lists",
    "rl-usage",
    "rl-keys",
    "rl-policy",
    "rs-out",
    "inv-out",
    "pm-updated",
    "pm-leases",
    "pm-semaphores",
    "wh-source",
    "wh-out",
    "ac-keys",
    "ac-audit",
  ]) {
    $(id).replaceChildren();
  }
}

function showTokenState() {
  $("auth-status").textContent = sessionStorage.getItem(TOKEN_KEY) ? "Token set for this tab." : "No token yet.";
}

function submit(id, fn) {
  $(id).addEventListener("submit", (e) => {
    e.preventDefault();
    run(fn);
  });
}

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
  $("token").value = "";
  forgetShown();
  showTokenState();
  openView();
});
$("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  forgetShown();
  showTokenState();
});
submit("rl-form", showUsage);
submit("rl-keys-form", showPolicyKeys);
submit("rs-form", showReservations);
submit("inv-form", showInventory);
submit("pm-form", () => VIEWS.permits());
submit("wh-form", showEvents);
submit("ac-form", () => orForbidden(showAudit, $("ac-audit"), "the audit log"));
$("pm-semaphores").addEventListener("click", toggleHolders);
$("pm-live").addEventListener("change", () => (currentView() === "permits" ? startPermitsLive() : undefined));
window.addEventListener("hashchange", openView);

watchFields();
defaults();
showTokenState();
openView();
