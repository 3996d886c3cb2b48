// The rate-limit view: every policy and every deny/allow list entry; for a policy and key, its current window, chart and overrides;
// for a policy, its keys and its decisions per minute.
import { all, api } from "./api.js";
import { chart, dropChart } from "./chart.js";
import { $, el, stat, table, truncatedNote } from "./dom.js";
import { duration, utc } from "./format.js";

export async function loadRateLimits() {
  const [policies, deny, allow] = await Promise.all(
    ["/v1/ratelimits/policies", "/v1/ratelimits/lists/deny", "/v1/ratelimits/lists/allow"].map((path) => all(path, { limit: 1000 })),
  );
  showLists([...deny, ...allow]);
  table(
    "rl-policies",
    `${policies.length} ${policies.length === 1 ? "policy" : "policies"}`,
    ["Name", "Algorithm", "Limit", "Window", "On unavailable", "History kept", "Mode"],
    policies.map((p) => [
      p.name,
      p.algorithm.replace("_", " "),
      p.limit,
      duration(p.window_ms),
      p.on_unavailable,
      duration(p.history_ms),
      p.shadow ? "shadow (never refuses)" : "enforced",
    ]),
  );
  const select = $("rl-policy");
  const chosen = select.value;
  select.replaceChildren(...policies.map((p) => el("option", { value: p.name }, p.name)));
  if (policies.some((p) => p.name === chosen)) select.value = chosen;
  if (select.value && $("rl-key").value) await showUsage();
}

export async function showUsage() {
  const policy = $("rl-policy").value;
  const key = $("rl-key").value;
  const out = $("rl-usage");
  const pol = await api(`/v1/ratelimits/policies/${encodeURIComponent(policy)}`);
  dropChart();
  const history = pol.algorithm !== "token_bucket";
  const now = Date.now();
  // The last 60 windows (within what the policy keeps), and the current one.
  const span = Math.min(60 * pol.window_ms, Math.max(pol.history_ms, pol.window_ms));
  const query = history ? { policy, key, from: new Date(now - span).toISOString(), to: new Date(now + pol.window_ms).toISOString() } : { policy, key };
  const [u, overrides] = await Promise.all([
    api("/v1/ratelimits/usage", query),
    all(`/v1/ratelimits/policies/${encodeURIComponent(policy)}/overrides`, { limit: 1000 }),
  ]);
  const remaining = Math.max(u.limit - u.consumed, 0);
  const reset = Date.parse(u.window_end) - now;
  const stats = el(
    "dl",
    { class: "stats", "aria-label": `Current window of ${key}` },
    stat("Admitted", u.admitted, "rl-admitted"),
    stat("Rejected", u.rejected, "rl-rejected"),
    stat("Would refuse (shadow mode let through)", u.would_refuse, "rl-would-refuse"),
    stat("Mode", u.shadow ? "shadow: decided and counted, never refused" : "enforced", "rl-mode"),
    stat("Attempted", u.attempted, "rl-attempted"),
    stat(pol.algorithm === "fixed_window" ? "Remaining" : "Remaining (this window's count)", `${remaining} of ${u.limit}`, "rl-remaining"),
    stat("Resets in", `${duration(reset)} (${utc(u.window_end)})`, "rl-reset"),
    stat(
      "Deny cache",
      u.deny_cached_until ? `serving denials until ${utc(u.deny_cached_until)}` : "not serving this key (checks reach the database)",
      "rl-cache",
    ),
  );
  const parts = [el("h3", {}, `Key “${key}” in “${policy}”`), stats];
  if (history) parts.push(chart(u.windows ?? [], pol.window_ms, Date.parse(query.from), Date.parse(u.window_end)));
  else parts.push(el("p", { class: "muted" }, "A token bucket keeps no per-window history."));
  const mine = overrides.filter((o) => o.key === key);
  parts.push(
    table(
      el("table"),
      `Overrides of “${policy}” (${overrides.length}; this key's are marked)`,
      ["Key", "Limit", "Valid from", "Valid to", "Mode"],
      overrides.map((o) => [o.key, o.limit, utc(o.valid_from), o.valid_to ? utc(o.valid_to) : "open-ended", o.shadow ? "shadow" : "enforced"]),
      (i) => (mine.includes(overrides[i]) ? "mark" : undefined),
    ),
  );
  out.replaceChildren(...parts);
}

/**
 * The policy chosen above: its keys by denials or use (GET …/keys, every page up to 5 000), and its
 * decisions per minute over the last hour with the totals (GET …/decisions). Calls the deny cache
 * answered are in both once their isolate has flushed them (within 2 s).
 */
export async function showPolicyKeys() {
  const policy = $("rl-policy").value;
  const span = $("rl-window").value;
  const order = $("rl-order").value;
  const path = `/v1/ratelimits/policies/${encodeURIComponent(policy)}`;
  const [keys, minutes] = await Promise.all([all(`${path}/keys`, { window: span, order, limit: 1000 }), api(`${path}/decisions`, { minutes: 60 })]);
  const over = span === "1h" ? "over the last hour" : "in the current window";
  const sum = (f) => minutes.items.reduce((s, m) => s + m[f], 0);
  const totals = el(
    "dl",
    { class: "stats", "aria-label": `Decisions of ${policy} over the last hour` },
    stat("Allowed, last hour", sum("allowed"), "rl-total-allowed"),
    stat("Denied, last hour", sum("denied"), "rl-total-denied"),
    stat("Would refuse (shadow), last hour", sum("would_refuse"), "rl-total-would-refuse"),
    stat("Not enforced (fail open)", sum("unenforced"), "rl-total-unenforced"),
    stat("Unavailable (fail closed)", sum("unavailable"), "rl-total-unavailable"),
  );
  $("rl-keys").replaceChildren(
    el("h3", {}, `Policy “${policy}”`),
    totals,
    truncatedNote(keys, "keys") ?? "",
    table(
      el("table", { id: "rl-keys-table" }),
      `Keys of “${policy}” ${over}, ${order === "used" ? "most used" : "most denied"} first (${keys.length}${keys.truncated ? "+" : ""})`,
      ["Key", "Rejected", "Admitted", "Attempted", "Units used"],
      keys.map((k) => [k.key, k.rejected, k.admitted, k.attempted, k.consumed]),
    ),
    table(
      el("table", { id: "rl-minutes" }),
      `Decisions of “${policy}” per minute, last hour (UTC; minutes without any left out)`,
      ["Minute", "Allowed", "Denied", "Would refuse", "Not enforced", "Unavailable"],
      minutes.items.map((m) => [utc(m.minute), m.allowed, m.denied, m.would_refuse, m.unenforced, m.unavailable]),
    ),
  );
}

/** Every deny/allow list entry (checked before every limit). */
function showLists(entries) {
  table(
    "rl-lists",
    `${entries.length} deny/allow list ${entries.length === 1 ? "entry" : "entries"} (checked before every limit; a change reaches every isolate within 5 s)`,
    ["List", "Policy", "Kind", "Value", "Reason", "Expires"],
    entries.map((e) => [
      e.list,
      e.policy ?? "every policy",
      e.kind,
      e.value,
      e.reason ?? "",
      e.expires_at ? `${utc(e.expires_at)}${e.expired ? " (expired)" : ""}` : "never",
    ]),
  );
}
