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
    throw new ApiError(0, { title: "The Worker did not answer", detail: "The request failed before an answer came: is the Worker running?" });
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

/** Every page of a list endpoint ({items, next_cursor}), up to `max` items. */
async function all(path, query = {}, max = 5000) {
  const items = [];
  let cursor;
  do {
    const page = await api(path, { ...query, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor && items.length < max);
  return items;
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

const svg = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
};

/** A table with a caption, column headers and rows of cells (strings, numbers or nodes). */
function table(target, caption, headers, rows, rowClass = () => undefined) {
  const t = typeof target === "string" ? $(target) : target;
  t.replaceChildren(
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el(
      "tbody",
      {},
      rows.length
        ? rows.map((r, i) => el("tr", { class: rowClass(i) }, r.map((c, j) => (j === 0 ? el("th", { scope: "row" }, c) : el("td", {}, c)))))
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

/** `datetime-local` value (read as UTC) ↔ RFC 3339. */
const toLocalInput = (d) => d.toISOString().slice(0, 16);
const fromLocalInput = (v) => `${v.length === 16 ? `${v}:00` : v}Z`;

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
  const history = pol.algorithm !== "token_bucket";
  const now = Date.now();
  // The last 60 windows (within what the policy keeps), and the current one.
  const span = Math.min(60 * pol.window_ms, Math.max(pol.history_ms, pol.window_ms));
  const query = history ? { policy, key, from: new Date(now - span).toISOString(), to: new Date(now + pol.window_ms).toISOString() } : { policy, key };
  const [u, overrides] = await Promise.all([api("/v1/ratelimits/usage", query), api(`/v1/ratelimits/policies/${encodeURIComponent(policy)}/overrides`)]);
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
  const mine = overrides.items.filter((o) => o.key === key);
  parts.push(
    table(
      el("table"),
      `Overrides of “${policy}” (${overrides.items.length}; this key's are marked)`,
      ["Key", "Limit", "Valid from", "Valid to"],
      overrides.items.map((o) => [o.key, o.limit, utc(o.valid_from), o.valid_to ? utc(o.valid_to) : "open-ended"]),
      (i) => (mine.includes(overrides.items[i]) ? "mark" : undefined),
    ),
  );
  out.replaceChildren(...parts);
}

function stat(label, value, id) {
  return el("div", {}, el("dt", {}, label), el("dd", { id }, value));
}

/** Admitted and rejected per window as stacked bars, with a table of the same numbers for screen readers. */
function chart(windows, windowMs, from, to) {
  const figure = el("figure", { class: "chart" });
  const caption = el("figcaption", {}, `Admitted and rejected per ${duration(windowMs)} window (${windows.length} with traffic)`);
  if (!windows.length) {
    figure.append(caption, el("p", { class: "muted" }, "No calls in the windows shown."));
    return figure;
  }
  const W = 720;
  const H = 200;
  const pad = { l: 40, r: 8, t: 8, b: 28 };
  const max = Math.max(1, ...windows.map((w) => w.admitted + w.rejected));
  // The whole range asked for (window-aligned), so quiet windows show as gaps.
  const t0 = Math.min(Math.floor(from / windowMs) * windowMs, Date.parse(windows[0].window_start));
  const t1 = Math.max(to, Date.parse(windows[windows.length - 1].window_end));
  const slots = Math.max(1, Math.round((t1 - t0) / windowMs));
  const bw = (W - pad.l - pad.r) / slots;
  const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `Bar chart: ${caption.textContent}` });
  g.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(0), y2: y(0), class: "axis" }));
  for (const v of [0, max]) g.append(svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, String(v)));
  for (const w of windows) {
    const x = pad.l + ((Date.parse(w.window_start) - t0) / windowMs) * bw;
    const width = Math.max(bw - 2, 1);
    const title = `${utc(w.window_start)}: ${w.admitted} admitted, ${w.rejected} rejected`;
    g.append(
      svg("rect", { x, y: y(w.admitted), width, height: y(0) - y(w.admitted), class: "admitted" }, svg("title", {}, title)),
      svg("rect", { x, y: y(w.admitted + w.rejected), width, height: y(0) - y(w.rejected), class: "rejected" }, svg("title", {}, title)),
    );
  }
  g.append(
    svg("text", { x: pad.l, y: H - 8, class: "tick" }, utc(new Date(t0).toISOString())),
    svg("text", { x: W - pad.r, y: H - 8, "text-anchor": "end", class: "tick" }, utc(new Date(t1).toISOString())),
  );
  const legend = el("p", { class: "legend" }, el("span", { class: "swatch admitted" }), " admitted ", el("span", { class: "swatch rejected" }), " rejected");
  const details = el("details", {}, el("summary", {}, "The numbers"));
  table(
    details.appendChild(el("table")),
    "Per window",
    ["Window start", "Admitted", "Rejected", "Attempted"],
    windows.map((w) => [utc(w.window_start), w.admitted, w.rejected, w.attempted]),
  );
  figure.append(caption, g, legend, details);
  return figure;
}

// ------------------------------------------------------------------------------------------------
// Reservations.

async function showReservations() {
  const resource = $("rs-resource").value;
  const from = fromLocalInput($("rs-from").value);
  const to = fromLocalInput($("rs-to").value);
  const [avail, list] = await Promise.all([
    api(`/v1/resources/${encodeURIComponent(resource)}/availability`, { from, to }),
    all("/v1/reservations", { resource, from, to, include_cancelled: "true", limit: 1000 }),
  ]);
  const t0 = Date.parse(from);
  const span = Date.parse(to) - t0;
  const pct = (iso) => `${(((Date.parse(iso) - t0) / span) * 100).toFixed(3)}%`;
  const width = (a, b) => `${(((Date.parse(b) - Date.parse(a)) / span) * 100).toFixed(3)}%`;
  const active = list.filter((r) => r.status === "active");
  const bar = el("div", { class: "timeline", role: "img", "aria-label": `Timeline of ${resource}: ${active.length} reserved, ${avail.free.length} free intervals` });
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
    const seg = el("div", { class: "seg cancelled", title: `${r.holder} (cancelled ${utc(r.cancelled_at)}): ${utc(r.start)} – ${utc(r.end)}` }, el("span", {}, r.holder));
    seg.style.left = pct(s);
    seg.style.width = width(s, e);
    lane.append(seg);
  }
  $("rs-out").replaceChildren(
    el("h3", {}, `${resource}: ${utc(from)} – ${utc(to)}`),
    bar,
    lane,
    el("p", { class: "legend" }, el("span", { class: "swatch busy" }), " reserved ", el("span", { class: "swatch free" }), " free ", el("span", { class: "swatch cancelled" }), " cancelled (history, lower lane)"),
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
  const a = await api(`/v1/inventory/${encodeURIComponent(item)}/availability`, { from: $("inv-from").value, to: $("inv-to").value });
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

async function loadPermits() {
  const [leases, semaphores] = await Promise.all([all("/v1/locks", { prefix: $("pm-prefix").value, limit: 1000 }), all("/v1/semaphores", { limit: 1000 })]);
  table(
    "pm-leases",
    `${leases.length} held`,
    ["Key", "Holder", "Fencing token", "Claimed", "Time left"],
    leases.map((l) => [l.key, l.holder, l.fencing_token, utc(l.claimed_at), timeLeft(l.expires_at)]),
  );
  $("pm-semaphores").replaceChildren(
    ...(semaphores.length ? [] : [el("p", { class: "muted" }, "No semaphores.")]),
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
  const events = await all(`/v1/webhooks/${encodeURIComponent(source)}/events`, { status: $("wh-status").value, limit: 1000 });
  // A lapsed claim: claimed before, never acknowledged, and its claim has run out.
  const lapsed = (e) => e.status === "received" && e.claims > 0;
  const counts = { received: 0, claimed: 0, processed: 0 };
  for (const e of events) counts[e.status]++;
  $("wh-out").replaceChildren(
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
      `Events of ${source} (${events.length}); lapsed claims are highlighted`,
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
};

/** Runs a load; a failure shows its problem instead of throwing. */
async function run(fn) {
  try {
    await fn();
    clearProblem();
  } catch (err) {
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
  $("rs-from").value = toLocalInput(day);
  $("rs-to").value = toLocalInput(new Date(day.getTime() + 86_400_000));
  const date = (d) => d.toISOString().slice(0, 10);
  $("inv-from").value = date(day);
  $("inv-to").value = date(new Date(day.getTime() + 7 * 86_400_000));
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
  showTokenState();
  openView();
});
$("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  stopLive();
  showTokenState();
});
submit("rl-form", showUsage);
submit("rs-form", showReservations);
submit("inv-form", showInventory);
submit("pm-form", () => VIEWS.permits());
submit("wh-form", showEvents);
$("pm-live").addEventListener("change", () => (currentView() === "permits" ? startLive() : undefined));
window.addEventListener("hashchange", openView);

defaults();
showTokenState();
openView();
