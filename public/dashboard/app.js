// The dashboard (/dashboard, docs/dashboard.md): five views over this Worker's /v1 API, no framework.
// The token lives in sessionStorage only (this tab, until it closes): it is sent in the
// Authorization header, never put in a URL, and never logged. Every text goes in through
// textContent, never innerHTML: names and payloads come from callers.

const TOKEN_KEY = "admit.token";
const LIVE_MS = 2000;
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------------------------------------
// The API.

class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** An answer to a token that is no longer the tab's: never shown (what it holds was read with the old key). */
class StaleAnswer extends Error {}

/** GET `path` (with `query`) from this Worker's API; throws ApiError for a problem answer. */
async function api(path, query = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new ApiError(401, { title: "No token", detail: "Enter the API token above to load this view." });
  const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const url = params.size ? `${path}?${params}` : path;
  let res;
  try {
    res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
  } catch {
    if (sessionStorage.getItem(TOKEN_KEY) !== token) throw new StaleAnswer();
    throw new ApiError(0, { title: "The Worker did not answer", detail: "The request failed before an answer came: is the Worker running?" });
  }
  const body = await res.json().catch(() => null);
  if (sessionStorage.getItem(TOKEN_KEY) !== token) throw new StaleAnswer();
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

/** Every page of a list endpoint ({items, next_cursor}), up to `max` items; `truncated` when more exist. */
async function all(path, query = {}, max = 5000) {
  const items = [];
  let cursor;
  do {
    const page = await api(path, { ...query, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor && items.length < max);
  items.truncated = Boolean(cursor);
  return items;
}

/** Says that a list shows only its first items (all() stopped at its `max`), or nothing. */
function truncatedNote(list, what) {
  if (!list.truncated) return undefined;
  return el("p", { class: "truncated", role: "status" }, `Only the first ${list.length} ${what} are shown, and counted; narrow the query to see the rest.`);
}

/** Shows a failed load: a refused token gets its own clear message. */
function showProblem(err) {
  const box = $("problem");
  box.hidden = false;
  box.replaceChildren();
  if (err instanceof ApiError && err.status === 401) {
    box.className = "problem auth";
    box.append(
      el("strong", {}, "The API token was not accepted."),
      " ",
      sessionStorage.getItem(TOKEN_KEY) ? "The Worker answered 401: check the token and enter it again above." : "Enter the API token above.",
    );
    $("auth-status").textContent = "No valid token.";
    return;
  }
  box.className = "problem";
  if (err instanceof ApiError && err.status === 403) {
    // A key without this view's scope: say which, nothing more (the Worker names only what is lacking).
    box.append(el("strong", {}, "This key may not read this view: "), err.message || "forbidden");
    return;
  }
  const status = err instanceof ApiError && err.status ? ` (${err.status})` : "";
  box.append(el("strong", {}, `Could not load${status}: `), err.message || String(err));
}

function clearProblem() {
  $("problem").hidden = true;
  $("problem").replaceChildren();
}

// ------------------------------------------------------------------------------------------------
// Small DOM and formatting helpers.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
}

/** A table with a caption, column headers and rows of cells (strings, numbers or nodes). */
function table(target, caption, headers, rows, rowClass = () => undefined) {
  const t = typeof target === "string" ? $(target) : target;
  t.replaceChildren(
    el("caption", {}, caption),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        headers.map((h) => el("th", { scope: "col" }, h)),
      ),
    ),
    el(
      "tbody",
      {},
      rows.length
        ? rows.map((r, i) =>
            el(
              "tr",
              { class: rowClass(i) },
              r.map((c, j) => (j === 0 ? el("th", { scope: "row" }, c) : el("td", {}, c))),
            ),
          )
        : el("tr", {}, el("td", { colspan: headers.length, class: "muted" }, "None.")),
    ),
  );
  return t;
}

/** "2030-05-01 09:00:00 UTC" */
function utc(iso) {
  if (!iso) return "—";
  return `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "1 h 2 min", "12 s", "450 ms" */
function duration(ms) {
  if (ms < 0) return "expired";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const timeLeft = (expires) => el("span", { class: "time-left", "data-expires": expires }, duration(Date.parse(expires) - Date.now()));

// Dates and times are typed as UTC text (YYYY-MM-DD, YYYY-MM-DDTHH:MMZ), not the browser's date
// pickers: those show and read the browser's locale and time zone. What the page sends is what
// the reader typed, as UTC.

/** "2030-05-01T08:00Z" */
const toUtcMinute = (d) => `${d.toISOString().slice(0, 16)}Z`;
/** "2030-05-01" */
const toUtcDate = (d) => d.toISOString().slice(0, 10);

/**
 * The input's UTC minute ("2030-05-01T08:00Z", also "2030-05-01 08:00") as RFC 3339
 * ("2030-05-01T08:00:00Z"); a value that is no such time is refused where it was typed.
 */
function utcMinuteOf(input) {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})Z?$/i.exec(input.value.trim());
  const iso = m ? `${m[1]}T${m[2]}:00Z` : "";
  const t = Date.parse(iso); // NaN, or another day (2030-02-31), for a time that does not exist
  return checked(
    input,
    m && !Number.isNaN(t) && toUtcMinute(new Date(t)) === `${m[1]}T${m[2]}Z` ? iso : null,
    "a UTC time as YYYY-MM-DDTHH:MMZ, e.g. 2030-05-01T08:00Z",
  );
}

/** The input's UTC calendar day ("2030-06-01"); a value that is no such day is refused where it was typed. */
function utcDateOf(input) {
  const v = input.value.trim();
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Number.NaN;
  const ok = !Number.isNaN(t) && toUtcDate(new Date(t)) === v;
  return checked(input, ok ? v : null, "a UTC date as YYYY-MM-DD, e.g. 2030-06-01");
}

/** `value`, or (null) the input marked invalid with what it wants, focused, and the load stopped. */
function checked(input, value, wanted) {
  input.setCustomValidity(value === null ? `Enter ${wanted}.` : "");
  if (value !== null) return value;
  input.reportValidity();
  input.focus();
  throw new InputError();
}

/** A typed value that is not what the field wants: the field says so; no problem box. */
class InputError extends Error {}
for (const input of document.querySelectorAll("input[pattern]")) input.addEventListener("input", () => input.setCustomValidity(""));

// ------------------------------------------------------------------------------------------------
// Rate limits.

async function loadRateLimits() {
  const policies = await all("/v1/ratelimits/policies", { limit: 1000 });
  table(
    "rl-policies",
    `${policies.length} ${policies.length === 1 ? "policy" : "policies"}`,
    ["Name", "Algorithm", "Limit", "Window", "On unavailable", "History kept"],
    policies.map((p) => [p.name, p.algorithm.replace("_", " "), p.limit, duration(p.window_ms), p.on_unavailable, duration(p.history_ms)]),
  );
  const select = $("rl-policy");
  const chosen = select.value;
  select.replaceChildren(...policies.map((p) => el("option", { value: p.name }, p.name)));
  if (policies.some((p) => p.name === chosen)) select.value = chosen;
  if (select.value && $("rl-key").value) await showUsage();
}

async function showUsage() {
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
      ["Key", "Limit", "Valid from", "Valid to"],
      overrides.map((o) => [o.key, o.limit, utc(o.valid_from), o.valid_to ? utc(o.valid_to) : "open-ended"]),
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
async function showPolicyKeys() {
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
      ["Minute", "Allowed", "Denied", "Not enforced", "Unavailable"],
      minutes.items.map((m) => [utc(m.minute), m.allowed, m.denied, m.unenforced, m.unavailable]),
    ),
  );
}

function stat(label, value, id) {
  return el("div", {}, el("dt", {}, label), el("dd", { id }, value));
}

/** The chart on screen (uPlot) and what resizes it: destroyed when the usage is drawn again. */
let plot;
let plotResize;

function dropChart() {
  plotResize?.disconnect();
  plot?.destroy();
  plot = plotResize = undefined;
}

/** The time axis' labels, in UTC whatever the browser's locale: "14:00", with the date under the first tick of each day. */
function timeTicks(_u, splits) {
  let day;
  return splits.map((s) => {
    const iso = new Date(s * 1000).toISOString();
    const label = iso.slice(11, 16);
    if (iso.slice(0, 10) === day) return label;
    day = iso.slice(0, 10);
    return `${label}\n${day}`;
  });
}

/** A CSS custom property of the page (the canvas cannot use var()). */
const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * Admitted and rejected per window, side by side, over the whole range asked for (quiet windows are
 * gaps), drawn by uPlot (public/dashboard/vendor/, copied by dev/docs-assets.ts) on a canvas. Its
 * legend gives the totals, or one window's numbers under the pointer; times are UTC. The same
 * numbers are in a table for screen readers. Returns the figure; the chart is made once the figure
 * is on the page (it takes the figure's width) and follows its width after.
 */
function chart(windows, windowMs, from, to) {
  dropChart();
  const figure = el("figure", { class: "chart" });
  const caption = el("figcaption", {}, `Admitted and rejected per ${duration(windowMs)} window (${windows.length} with traffic)`);
  if (!windows.length) {
    figure.append(caption, el("p", { class: "muted" }, "No calls in the windows shown."));
    return figure;
  }
  // The whole range asked for (window-aligned): one slot per window, 0 where nothing came.
  const t0 = Math.min(Math.floor(from / windowMs) * windowMs, Date.parse(windows[0].window_start));
  const t1 = Math.max(Math.ceil(to / windowMs) * windowMs, Date.parse(windows[windows.length - 1].window_end));
  const slots = Math.max(1, Math.round((t1 - t0) / windowMs));
  const byStart = new Map(windows.map((w) => [Date.parse(w.window_start), w]));
  const xs = [];
  const admitted = [];
  const rejected = [];
  for (let i = 0; i < slots; i++) {
    const start = t0 + i * windowMs;
    const w = byStart.get(start);
    xs.push((start + windowMs / 2) / 1000); // uPlot's time scale is in seconds; a bar sits mid-window
    admitted.push(w ? w.admitted : 0);
    rejected.push(w ? w.rejected : 0);
  }
  const sum = (a) => a.reduce((s, v) => s + v, 0);
  const totals = [sum(admitted), sum(rejected)];
  // The legend's numbers: under the pointer, that window's; otherwise (no window: null) the totals.
  const count = (n) => (_u, v) => (v === null ? `${totals[n]} in all` : String(v));
  const label = `Bar chart: ${caption.textContent}; ${totals[0]} admitted, ${totals[1]} rejected in all`;
  const box = el("div", { class: "plot" });
  const { uPlot } = window;
  const bars = (align) => uPlot.paths.bars({ size: [0.45, 48, 2], align });
  const opts = (width) => ({
    width,
    height: 220,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    cursor: { drag: { x: false, y: false }, points: { show: false }, y: false },
    scales: {
      x: { time: true, range: () => [t0 / 1000, t1 / 1000] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [
      { label: "UTC", labelSize: 18, stroke: cssVar("--muted"), grid: { stroke: cssVar("--line"), width: 1 }, values: timeTicks },
      {
        stroke: cssVar("--muted"),
        grid: { stroke: cssVar("--line"), width: 1 },
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000, 1_000_000],
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : "")),
      },
    ],
    series: [
      { label: "Window (UTC)", value: (_u, v) => (v === null ? `${slots} windows` : utc(new Date(v * 1000 - windowMs / 2).toISOString())) },
      { label: "Admitted", value: count(0), fill: cssVar("--admitted"), stroke: cssVar("--admitted"), width: 0, paths: bars(-1), points: { show: false } },
      { label: "Rejected", value: count(1), fill: cssVar("--rejected"), stroke: cssVar("--rejected"), width: 0, paths: bars(1), points: { show: false } },
    ],
  });
  const details = el("details", {}, el("summary", {}, "The numbers"));
  table(
    details.appendChild(el("table")),
    "Per window",
    ["Window start", "Admitted", "Rejected", "Attempted"],
    windows.map((w) => [utc(w.window_start), w.admitted, w.rejected, w.attempted]),
  );
  figure.append(caption, box, details);
  // Made, and resized, once the figure has a width on the page.
  plotResize = new ResizeObserver(() => {
    const width = Math.floor(box.clientWidth);
    if (!width) return;
    if (!plot) {
      plot = new uPlot(opts(width), [xs, admitted, rejected], box);
      plot.root.querySelector("canvas").setAttribute("aria-label", label);
      plot.root.querySelector("canvas").setAttribute("role", "img");
      keyboardLegend(plot);
    } else if (plot.width !== width) plot.setSize({ width, height: 220 });
  });
  plotResize.observe(box);
  return figure;
}

/**
 * uPlot shows or hides a series when its legend entry is clicked; this makes each entry a toggle
 * button a keyboard reaches (Tab) and operates (Enter or Space), whose pressed state follows the
 * series whichever way it was toggled.
 */
function keyboardLegend(u) {
  const entries = [...u.root.querySelectorAll(".u-legend tr.u-series")];
  entries.forEach((tr, i) => {
    if (i === 0) return; // the time column: not a series to toggle
    const th = tr.querySelector("th");
    th.tabIndex = 0;
    th.setAttribute("role", "button");
    th.setAttribute("aria-pressed", String(u.series[i].show));
    th.title = `Show or hide ${u.series[i].label}`;
    th.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      u.setSeries(i, { show: !u.series[i].show });
    });
  });
  u.hooks.setSeries = [
    ...(u.hooks.setSeries ?? []),
    (_u, i) => {
      const th = i > 0 && entries[i]?.querySelector("th");
      if (th) th.setAttribute("aria-pressed", String(u.series[i].show));
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// Reservations.

async function showReservations() {
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

// ------------------------------------------------------------------------------------------------
// Inventory.

async function showInventory() {
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

// ------------------------------------------------------------------------------------------------
// Leases and semaphores, refreshed live.

let liveTimer;
let ticker;

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

function startLive() {
  stopLive();
  ticker = setInterval(() => {
    for (const s of document.querySelectorAll(".time-left")) s.textContent = duration(Date.parse(s.dataset.expires) - Date.now());
  }, 1000);
  if ($("pm-live").checked) liveTimer = setInterval(() => run(loadPermits), LIVE_MS);
}

function stopLive() {
  clearInterval(liveTimer);
  clearInterval(ticker);
}

// ------------------------------------------------------------------------------------------------
// Webhooks.

async function loadSources() {
  const sources = await all("/v1/webhooks/sources", { limit: 1000 });
  const select = $("wh-source");
  const chosen = select.value;
  select.replaceChildren(...sources.map((s) => el("option", { value: s.source }, s.source)));
  if (sources.some((s) => s.source === chosen)) select.value = chosen;
  if (!sources.length) $("wh-out").replaceChildren(el("p", { class: "muted" }, "No webhook sources registered."));
  else await showEvents();
}

async function showEvents() {
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

// ------------------------------------------------------------------------------------------------
// Keys and the audit log (keys:read and audit:read; docs/keys.md). Secrets are never listed.

/** One part of the view: its rows, or the 403 of a key without that scope, said in place. */
async function orForbidden(load, out, what) {
  try {
    await load();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    out.replaceChildren(el("p", { class: "muted" }, `This key may not read ${what} (${err.message}).`));
  }
}

async function showKeys() {
  const keys = await all("/v1/keys", { limit: 1000 });
  $("ac-keys").replaceChildren(
    truncatedNote(keys, "keys") ?? "",
    table(
      el("table", { id: "ac-key-table" }),
      `API keys (${keys.length}); the root API_TOKEN is not one of them`,
      ["Name", "Starts", "Scopes", "Names", "Expires", "Revoked", "Last used"],
      keys.map((k) => [
        k.name,
        k.secrets.map((s) => s.start + "…").join(", ") || "—",
        k.scopes.join(" "),
        k.names ? k.names.join(" ") : "any",
        k.expires_at ? utc(k.expires_at) : "never",
        k.revoked_at ? utc(k.revoked_at) : "—",
        k.last_used_at ? utc(k.last_used_at) : "—",
      ]),
    ),
  );
}

async function showAudit() {
  const entries = await all("/v1/audit", { target: $("ac-target").value.trim(), limit: 200 }, 200);
  $("ac-audit").replaceChildren(
    truncatedNote(entries, "changes") ?? "",
    table(
      el("table", { id: "ac-audit-table" }),
      `Configuration changes, newest first (${entries.truncated ? `the latest ${entries.length}` : entries.length})`,
      ["When", "Key", "Action", "Name", "Change"],
      entries.map((a) => [utc(a.at), a.key.name, a.action, a.target, JSON.stringify(a.change)]),
    ),
  );
}

async function loadAccess() {
  await orForbidden(showKeys, $("ac-keys"), "keys");
  await orForbidden(showAudit, $("ac-audit"), "the audit log");
}

// ------------------------------------------------------------------------------------------------
// Views, the token, and wiring.

const VIEWS = {
  ratelimits: loadRateLimits,
  reservations: async () => $("rs-resource").value && showReservations(),
  inventory: async () => $("inv-item").value && showInventory(),
  permits: async () => {
    await loadPermits();
    startLive();
  },
  webhooks: loadSources,
  access: loadAccess,
};

/** Runs a load; a failure shows its problem instead of throwing. */
async function run(fn) {
  try {
    await fn();
    clearProblem();
  } catch (err) {
    if (err instanceof InputError || err instanceof StaleAnswer) return;
    if (err instanceof ApiError && err.status === 401) stopLive();
    showProblem(err);
  }
}

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
$("pm-semaphores").addEventListener("click", (e) => {
  const button = e.target.closest("button.holders-toggle");
  if (!button) return;
  const name = button.dataset.semaphore;
  if (allHolders.has(name)) allHolders.delete(name);
  else allHolders.add(name);
  run(loadPermits);
});
$("pm-live").addEventListener("change", () => (currentView() === "permits" ? startLive() : undefined));
window.addEventListener("hashchange", openView);

defaults();
showTokenState();
openView();
