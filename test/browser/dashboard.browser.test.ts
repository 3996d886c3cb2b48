// The dashboard (/dashboard: public/dashboard.html and public/dashboard/, Workers static assets) in a
// real browser — Chromium (findChromium: the one npm ci installs, unless told otherwise) driven by
// puppeteer-core — against the Worker in the Workers runtime (wrangler dev) on its own database. Data is made through the API; each view is opened as a
// person would (the nav, the forms) and what it shows is read off the page: the denied key's numbers,
// the lease holder and its fencing token, the booked nights, the lapsed webhook claim. A wrong token
// shows a clear message; every request the page makes goes to the Worker; the token never appears in
// a URL or in localStorage. The browser runs in a time zone 14 hours from UTC: what the page shows and
// sends is UTC all the same. Screenshots go to test/screenshots/dashboard-*.png (git-ignored).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, HTTPRequest, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { ownSocket } from "../../dev/wrangler";
import { type BrowserSession, findChromium, launchBrowser, roomInWindow, sql, TOKEN, until, workerSuite } from "../support";
import { newSecret, signedHeaders } from "../webhooks/webhooks.support";

const SHOTS = join(ROOT, "test", "screenshots");
/** The browser's time zone: far from UTC (UTC+14), so a local time read as UTC would show. */
const BROWSER_TZ = "Pacific/Kiritimati";

const suite = workerSuite("dashboard_browser");
let browser: Browser;
let page: Page;
let origin: string;
/** Every URL the page asked for, from the first navigation on. */
let requested: BrowserSession["requested"];
/** Answers of 400 and over, and requests that failed. */
let failed: BrowserSession["failed"];
let consoleErrors: BrowserSession["consoleErrors"];
/** What the API said while the data was made (the lease's and permit's fencing tokens). */
const made: Record<string, any> = {};

async function ok(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const r = await suite.api(method, path, body, headers);
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
  return r.json;
}

/** The data every view shows, made through the API like any caller would. */
async function makeData() {
  // Rate limits: 5 units an hour. 3 admitted; 3 more denied by the database, then by this isolate's
  // deny cache (counted once the isolate has flushed: rejected 2); 2 admitted (the last units), after
  // which the cache refuses the key until the window ends.
  await ok("PUT", "/v1/ratelimits/policies/api-demo", { algorithm: "fixed_window", limit: 5, window_ms: 3_600_000 });
  await ok("PUT", "/v1/ratelimits/policies/search", { algorithm: "token_bucket", limit: 20, window_ms: 1000 });
  await ok("PUT", "/v1/ratelimits/policies/api-demo/overrides/customer-7", { limit: 50, valid_from: "2026-01-01T00:00:00Z" });
  await ok("PUT", "/v1/ratelimits/lists/deny", { kind: "ip", value: "203.0.113.0/24", policy: "api-demo", reason: "card testing" });
  await ok("PUT", "/v1/ratelimits/lists/allow", { kind: "prefix", value: "internal-", expires_at: "2099-01-01T00:00:00Z" });
  const check = (cost: number) => suite.api("POST", "/v1/ratelimits/check", { policy: "api-demo", key: "customer-42", cost });
  expect((await check(3)).status).toBe(200);
  expect((await check(3)).status).toBe(429);
  expect((await check(3)).status).toBe(429);
  expect((await check(2)).status).toBe(200);
  // The cache's answer reaches the counts within the flush bound (METRICS_FLUSH_MS, 2 s).
  await until(async () => (await ok("GET", "/v1/ratelimits/usage?policy=api-demo&key=customer-42")).attempted >= 4, 30_000, "the flush");
  const usage = await ok("GET", "/v1/ratelimits/usage?policy=api-demo&key=customer-42");
  expect(usage).toMatchObject({ admitted: 2, rejected: 2, attempted: 4, consumed: 5 });
  expect(usage.deny_cached_until).not.toBeNull();

  // Reservations on 2030-05-01: alice 09–10, bob 11–12, carol 13–14 cancelled.
  const reserve = (holder: string, s: string, e: string) =>
    ok("POST", "/v1/reservations", { resource: "room-101", holder, start: `2030-05-01T${s}:00Z`, end: `2030-05-01T${e}:00Z` });
  await reserve("alice", "09:00", "10:00");
  await reserve("bob", "11:00", "12:00");
  const carol = await reserve("carol", "13:00", "14:00");
  expect((await suite.api("DELETE", `/v1/reservations/${carol.id}`)).status).toBe(204);

  // Inventory: 5 rooms a night 1–3 June 2030; 2 booked (confirmed) for the 1st and 2nd, 1 held for the 2nd and 3rd.
  await ok("PUT", "/v1/inventory/hotel-double/stock", { from: "2030-06-01", to: "2030-06-04", quantity: 5 });
  const booked = await ok("POST", "/v1/inventory/hotel-double/bookings", {
    check_in: "2030-06-01",
    check_out: "2030-06-03",
    quantity: 2,
    holder: "guest-1",
    hold_ms: 600_000,
  });
  await ok("POST", `/v1/inventory/hotel-double/bookings/${booked.booking_id}/confirm`);
  await ok("POST", "/v1/inventory/hotel-double/bookings", {
    check_in: "2030-06-02",
    check_out: "2030-06-04",
    quantity: 1,
    holder: "guest-2",
    hold_ms: 600_000,
  });

  // A lease and a semaphore slot, held for 10 minutes.
  made.lease = await ok("POST", "/v1/locks/nightly-report/acquire", { holder: "worker-7", ttl_ms: 600_000 });
  await ok("PUT", "/v1/semaphores/fragile-upstream", { permits: 3, default_ttl_ms: 600_000 });
  made.permit = await ok("POST", "/v1/semaphores/fragile-upstream/acquire", { holder: "worker-9" });

  // Webhooks: four deliveries; msg_1 processed, msg_2 claimed, msg_3's claim lapsed, msg_4 fresh.
  const secret = newSecret();
  await ok("PUT", "/v1/webhooks/sources/billing", { secret });
  const now = Math.floor(Date.now() / 1000);
  for (const id of ["msg_1", "msg_2", "msg_3", "msg_4"]) {
    const body = JSON.stringify({ type: "invoice.paid", id });
    const r = await fetch(`${ownSocket(suite.worker)}/v1/webhooks/billing`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders([secret], id, now, body) },
      body,
    });
    expect(r.status).toBe(200);
  }
  const first = await ok("POST", "/v1/webhooks/billing/events/claim", { limit: 2, visibility_ms: 600_000 });
  expect(first.events.map((e: any) => e.webhook_id)).toEqual(["msg_1", "msg_2"]);
  await ok("POST", `/v1/webhooks/billing/events/${first.events[0].id}/ack`, { receipt: first.events[0].receipt });
  const lapsing = await ok("POST", "/v1/webhooks/billing/events/claim", { limit: 1, visibility_ms: 100 });
  expect(lapsing.events.map((e: any) => e.webhook_id)).toEqual(["msg_3"]);
  // Let that 100 ms claim run out (one fixed pause, far longer than it; then checked, not assumed).
  await new Promise((r) => setTimeout(r, 1000));
  const received = await ok("GET", "/v1/webhooks/billing/events?status=received");
  expect(received.items.map((e: any) => [e.webhook_id, e.claims])).toEqual([
    ["msg_3", 1],
    ["msg_4", 0],
  ]);
}

beforeAll(async () => {
  await findChromium(); // no browser: fail now, saying why, before the data is made
  origin = new URL(suite.worker.url).origin;
  // The rate-limit view shows the current 1-hour window: the data and every assertion on it must
  // fall in one. With under 3 minutes of this hour left, start in the next one (a bounded wait).
  await roomInWindow(3_600_000, 180_000);
  await makeData();
  mkdirSync(SHOTS, { recursive: true });
  ({ browser, page, requested, failed, consoleErrors } = await launchBrowser({ viewport: { width: 1280, height: 900 }, timezone: BROWSER_TZ }));
  await page.goto(`${suite.worker.url}/dashboard`, { waitUntil: "networkidle0", timeout: 60_000 });
}, 360_000);

afterAll(async () => browser?.close());

const text = (selector: string) => page.$eval(selector, (e) => (e.textContent ?? "").replace(/\s+/g, " ").trim());
/** The visible rows of a table: each row's cells' text. */
const rows = (selector: string) =>
  page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? "").replace(/\s+/g, " ").trim())));
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `dashboard-${name}.png`), fullPage: true });

async function openView(name: string, label: string) {
  await page.click(`nav a[data-view="${name}"]`);
  await page.waitForFunction((n) => !(document.querySelector(`#view-${n}`) as HTMLElement).hidden, {}, name);
  expect(await page.$eval(`nav a[data-view="${name}"]`, (a) => a.getAttribute("aria-current"))).toBe("page");
  expect(await text(`#h-${name}`)).toBe(label);
}

/** Clears a text field and types `value` into it, as a person would. */
async function retype(selector: string, value: string) {
  await page.$eval(selector, (e) => void ((e as HTMLInputElement).value = ""));
  await page.type(selector, value);
}

/** The chart's legend: each series' label and value. */
const legend = () =>
  page.$$eval("#rl-usage .u-legend tr", (trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? "").replace(/\s+/g, " ").trim())));

async function submitAndWait(form: string, selector: string) {
  await page.click(`${form} button[type="submit"]`);
  await page.waitForSelector(selector, { timeout: 30_000 });
}

describe("the dashboard (/dashboard) in Chromium", { timeout: 120_000 }, () => {
  it("is served by the Worker as HTML with a strict Content-Security-Policy, and asks for a token first", async () => {
    const res = await fetch(`${suite.worker.url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(await (await fetch(`${suite.worker.url}/`)).json()).toMatchObject({ docs: "/docs", dashboard: "/dashboard" });
    expect(await page.title()).toMatch(/Admit dashboard/);
    expect(await text("#problem")).toContain("Enter the API token above");
    // Every control has a label a screen reader reads out.
    const unlabelled = await page.$$eval("input, select", (els) => els.filter((e) => !(e as HTMLInputElement).labels?.length).map((e) => e.id));
    expect(unlabelled).toEqual([]);
  });

  it("a wrong token shows a clear message, and no data", async () => {
    await page.type("#token", "not-the-token");
    await page.click('#token-form button[type="submit"]');
    // Waits for the Worker's 401: the page opened without a token already says "not accepted".
    await page.waitForFunction(() => document.querySelector("#problem")?.textContent?.includes("The Worker answered 401"), { timeout: 30_000 });
    expect(await text("#problem")).toBe("The API token was not accepted. The Worker answered 401: check the token and enter it again above.");
    expect(await page.$eval("#problem", (e) => e.getAttribute("role"))).toBe("alert");
    expect(await rows("#rl-policies")).toEqual([]);
    await shot("wrong-token");
  });

  it("rate limits: the policies, and for the denied key its admitted/rejected numbers, remaining, reset and the deny cache", async () => {
    await page.type("#token", TOKEN);
    await page.click('#token-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll("#rl-policies tbody tr th").length === 2, { timeout: 30_000 });
    expect(await page.$eval("#problem", (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(await text("#auth-status")).toBe("Token set for this tab.");
    expect(await rows("#rl-policies")).toEqual([
      ["api-demo", "fixed window", "5", "1 h 0 min", "deny", "7 d 0 h", "enforced"],
      ["search", "token bucket", "20", "1 s", "deny", "7 d 0 h", "enforced"],
    ]);
    expect(await rows("#rl-lists")).toEqual([
      ["deny", "api-demo", "ip", "203.0.113.0/24", "card testing", "never"],
      ["allow", "every policy", "prefix", "internal-", "", "2099-01-01 00:00:00 UTC"],
    ]);
    // An isolate believes a cached denial at most 5 s (DENY_BELIEF_MS): renew it just before the view
    // reads it, with a peek (cost 0): the database refuses it and the cache learns the denial; a peek
    // is no call (attempted stays 4) but is one decision (denied, in the per-minute counts).
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "api-demo", key: "customer-42", cost: 0 })).status).toBe(429);
    await page.select("#rl-policy", "api-demo");
    await page.type("#rl-key", "customer-42");
    await submitAndWait("#rl-form", "#rl-admitted");
    expect(await text("#rl-admitted")).toBe("2");
    expect(await text("#rl-rejected")).toBe("2");
    expect(await text("#rl-attempted")).toBe("4");
    expect([await text("#rl-would-refuse"), await text("#rl-mode")]).toEqual(["0", "enforced"]);
    expect(await text("#rl-remaining")).toBe("0 of 5");
    expect(await text("#rl-reset")).toMatch(/^(\d+ min )?\d+ s \(\d{4}-\d\d-\d\d \d\d:00:00 UTC\)$/);
    expect(await text("#rl-cache")).toMatch(/^serving denials until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // The chart (uPlot, on a canvas): drawn, with pixels in both series' colours, and its legend
    // gives the totals over the windows shown; the same numbers in the table.
    await page.waitForSelector("#rl-usage .chart canvas", { timeout: 30_000 });
    const drawn = await page.$eval("#rl-usage .chart canvas", (c) => {
      const canvas = c as HTMLCanvasElement;
      const px = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      const count = { admitted: 0, rejected: 0, width: canvas.width, height: canvas.height };
      for (let i = 0; i < px.length; i += 4) {
        if (px[i] === 0x1e && px[i + 1] === 0x6b && px[i + 2] === 0x3a) count.admitted++;
        if (px[i] === 0xb3 && px[i + 1] === 0x26 && px[i + 2] === 0x1e) count.rejected++;
      }
      return count;
    });
    expect(drawn.width).toBeGreaterThan(600);
    expect(drawn.admitted).toBeGreaterThan(50);
    expect(drawn.rejected).toBeGreaterThan(20);
    const totals = await legend();
    expect(totals).toEqual([
      ["Window (UTC)", expect.stringMatching(/^\d+ windows$/)],
      ["Admitted", "2 in all"],
      ["Rejected", "2 in all"],
    ]);
    expect((await rows("#rl-usage details table")).map((r) => r.slice(1))).toEqual([["2", "2", "4"]]);
    // Under the pointer, the last window's (the current one's) own numbers, its start in UTC.
    const slots = Number(totals[0][1].split(" ")[0]);
    // The pointer reaches only what is on screen: the chart is below the policies and lists.
    await page.$eval("#rl-usage .u-over", (e) => e.scrollIntoView({ block: "center" }));
    const over = (await (await page.$("#rl-usage .u-over"))!.boundingBox())!;
    await page.mouse.move(over.x + (over.width * (slots - 0.5)) / slots, over.y + over.height / 2);
    await page.waitForFunction(() => document.querySelector("#rl-usage .u-legend")?.textContent?.includes(":00:00 UTC"), { timeout: 10_000 });
    expect(await legend()).toEqual([
      ["Window (UTC)", expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:00:00 UTC$/)],
      ["Admitted", "2"],
      ["Rejected", "2"],
    ]);
    expect((await legend())[0][1]).toBe((await rows("#rl-usage details table"))[0][0]);
    // Each series' legend entry is a toggle button the keyboard reaches and operates.
    const entry = "#rl-usage .u-legend tr.u-series:nth-child(3)";
    const state = () =>
      page.$eval(entry, (tr) => ({
        off: tr.classList.contains("u-off"),
        pressed: tr.querySelector("th")!.getAttribute("aria-pressed"),
        tab: tr.querySelector("th")!.tabIndex,
      }));
    expect(await state()).toEqual({ off: false, pressed: "true", tab: 0 });
    await page.focus(`${entry} th`);
    await page.keyboard.press("Enter");
    expect(await state()).toEqual({ off: true, pressed: "false", tab: 0 });
    await page.keyboard.press("Space");
    expect(await state()).toEqual({ off: false, pressed: "true", tab: 0 });
    expect(await rows("#rl-usage > table")).toEqual([["customer-7", "50", "2026-01-01 00:00:00 UTC", "open-ended", "enforced"]]);
    // The policy's keys, most denied first, and its decisions over the last hour (the peek's once flushed).
    const denied = async () =>
      (await suite.api("GET", "/v1/ratelimits/policies/api-demo/decisions")).json.items.reduce((n: number, m: { denied: number }) => n + m.denied, 0);
    await until(async () => (await denied()) >= 3, 30_000, "the peek's decision to be flushed");
    await submitAndWait("#rl-keys-form", "#rl-keys-table");
    expect(await rows("#rl-keys-table")).toEqual([["customer-42", "2", "2", "4", "5"]]);
    expect([await text("#rl-total-allowed"), await text("#rl-total-denied"), await text("#rl-total-would-refuse"), await text("#rl-total-unenforced")]).toEqual(
      ["2", "3", "0", "0"],
    );
    const minutes = await rows("#rl-minutes");
    expect(minutes.reduce((n, r) => n + Number(r[2]), 0)).toBe(3);
    expect(minutes.every((r) => /^\d{4}-\d\d-\d\d \d\d:\d\d:00 UTC$/.test(r[0]))).toBe(true);
    await shot("ratelimits");
  });

  it("reservations: a timeline of the reserved and free intervals, and the cancelled one as history", async () => {
    await openView("reservations", "Reservations");
    // The browser is 14 hours ahead of UTC; the fields start at today's UTC midnight all the same.
    expect(await page.evaluate(() => [Intl.DateTimeFormat().resolvedOptions().timeZone, new Date().getTimezoneOffset()])).toEqual([BROWSER_TZ, -840]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.$eval("#rs-from", (e) => (e as HTMLInputElement).value)).toBe(`${today}T00:00Z`);
    expect(await page.$eval("#inv-from", (e) => (e as HTMLInputElement).value)).toBe(today);
    await page.type("#rs-resource", "room-101");
    // A time that does not exist is refused at the field, and nothing is asked for.
    const before = requested.length;
    await retype("#rs-from", "2030-02-31T08:00Z");
    await page.click('#rs-form button[type="submit"]');
    await page.waitForFunction(() => (document.querySelector("#rs-from") as HTMLInputElement).validationMessage.includes("UTC time"), { timeout: 10_000 });
    expect(requested.slice(before).filter((u) => u.includes("/v1/"))).toEqual([]);
    // Typed as UTC, sent as UTC.
    await retype("#rs-from", "2030-05-01T08:00Z");
    await retype("#rs-to", "2030-05-01T16:00Z");
    await submitAndWait("#rs-form", "#rs-list");
    expect(requested).toContain(`${origin}/v1/resources/room-101/availability?from=2030-05-01T08%3A00%3A00Z&to=2030-05-01T16%3A00%3A00Z`);
    expect(await rows("#rs-list")).toEqual([
      ["alice", "2030-05-01 09:00:00 UTC", "2030-05-01 10:00:00 UTC", "active", ""],
      ["bob", "2030-05-01 11:00:00 UTC", "2030-05-01 12:00:00 UTC", "active", ""],
      ["carol", "2030-05-01 13:00:00 UTC", "2030-05-01 14:00:00 UTC", "cancelled", expect.stringMatching(/UTC$/)],
    ]);
    expect(await text("#rs-list caption")).toBe("Reservations (2 active, 1 cancelled)");
    expect((await rows("#rs-free")).map((r) => `${r[0].slice(11, 16)}–${r[1].slice(11, 16)}`)).toEqual(["08:00–09:00", "10:00–11:00", "12:00–16:00"]);
    // The timeline: the two active holders drawn, the cancelled one not.
    expect(await page.$$eval(".timeline:not(.history) .busy", (s) => s.map((e) => e.textContent))).toEqual(["alice", "bob"]);
    expect(await page.$$eval(".timeline .free", (s) => s.length)).toBe(3);
    // The cancelled one on the history lane.
    expect(await page.$$eval(".timeline.history .cancelled", (s) => s.map((e) => e.textContent))).toEqual(["carol"]);
    await shot("reservations");
  });

  it("inventory: the nights × capacity/booked/held/available grid", async () => {
    await openView("inventory", "Inventory");
    await page.type("#inv-item", "hotel-double");
    await retype("#inv-from", "2030-06-01");
    await retype("#inv-to", "2030-06-05");
    await submitAndWait("#inv-form", "#inv-grid");
    expect(requested).toContain(`${origin}/v1/inventory/hotel-double/availability?from=2030-06-01&to=2030-06-05`);
    expect(await rows("#inv-grid")).toEqual([
      ["2030-06-01", "5", "2", "0", "3"],
      ["2030-06-02", "5", "2", "1", "2"],
      ["2030-06-03", "5", "0", "1", "4"],
      ["2030-06-04", "0", "0", "0", "0"],
    ]);
    await shot("inventory");
  });

  it("leases and semaphores: holder, slot, fencing token and time left, refreshed live", async () => {
    await openView("permits", "Leases & semaphores");
    await page.waitForSelector("#pm-leases tbody th", { timeout: 30_000 });
    const [lease] = await rows("#pm-leases");
    expect(lease.slice(0, 3)).toEqual(["nightly-report", "worker-7", String(made.lease.fencing_token)]);
    // Time left on a 10-minute lease: in the page's format, more than nothing and at most 10 minutes.
    const left = lease[4].match(/^(?:(\d+) min )?(\d+) s$/);
    expect(left, lease[4]).not.toBeNull();
    const [min, sec] = [Number(left![1] ?? 0), Number(left![2])];
    expect(sec).toBeLessThan(60);
    expect(min * 60 + sec).toBeGreaterThan(0);
    expect(min * 60 + sec).toBeLessThanOrEqual(600);
    expect(await text(".semaphore caption")).toBe("fragile-upstream: 1 of 3 in use, 2 free");
    const [slot] = await rows(".semaphore");
    expect(slot.slice(0, 3)).toEqual(["0", "worker-9", String(made.permit.fencing_token)]);
    // Live: a lease taken now appears without touching the page.
    const next = await ok("POST", "/v1/locks/invoice-run/acquire", { holder: "worker-3", ttl_ms: 300_000 });
    await page.waitForFunction(() => document.querySelector("#pm-leases")?.textContent?.includes("invoice-run"), { timeout: 30_000 });
    expect((await rows("#pm-leases")).map((r) => r.slice(0, 3))).toEqual([
      ["invoice-run", "worker-3", String(next.fencing_token)],
      ["nightly-report", "worker-7", String(made.lease.fencing_token)],
    ]);
    await shot("permits");
  });

  it("a semaphore with more holders than the list carries: the first 100 by slot, then all of them on request", async () => {
    await openView("permits", "Leases & semaphores");
    await ok("PUT", "/v1/semaphores/worker-pool", { permits: 105, default_ttl_ms: 600_000 });
    for (let i = 0; i < 105; i += 15) {
      await Promise.all(Array.from({ length: 15 }, (_, j) => ok("POST", "/v1/semaphores/worker-pool/acquire", { holder: `pool-${i + j}` })));
    }
    const pool = "#pm-semaphores > div:nth-child(2)";
    await page.waitForFunction((sel) => document.querySelector(`${sel} caption`)?.textContent?.includes("105 of 105"), { timeout: 30_000 }, pool);
    expect(await text(`${pool} caption`)).toBe("worker-pool: 105 of 105 in use, 0 free");
    expect((await rows(pool)).map((r) => r[0])).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
    expect(await text(`${pool} .more-holders`)).toBe("The first 100 holders by slot; 5 more. Show all 105");
    await shot("permits-many-holders");
    await page.click(`${pool} button.holders-toggle`);
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} tbody tr`).length === 105, { timeout: 30_000 }, pool);
    expect((await rows(pool)).map((r) => r[0])).toEqual(Array.from({ length: 105 }, (_, i) => String(i)));
    expect(await text(`${pool} .more-holders`)).toBe("All 105 holders. Show the first 100");
    await page.click(`${pool} button.holders-toggle`);
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} tbody tr`).length === 100, { timeout: 30_000 }, pool);
    expect(await text(`${pool} .more-holders`)).toBe("The first 100 holders by slot; 5 more. Show all 105");
  });

  it("webhooks: a source's events by status, the lapsed claim highlighted", async () => {
    await openView("webhooks", "Webhooks");
    await page.waitForSelector("#wh-events", { timeout: 30_000 });
    expect(await page.$eval("#wh-source", (s) => (s as HTMLSelectElement).value)).toBe("billing");
    expect([await text("#wh-received"), await text("#wh-claimed"), await text("#wh-processed"), await text("#wh-lapsed")]).toEqual(["2", "1", "1", "1"]);
    expect((await rows("#wh-events")).map((r) => r.slice(0, 3))).toEqual([
      ["msg_1", "processed", "1"],
      ["msg_2", "claimed", "1"],
      ["msg_3", "lapsed claim", "1"],
      ["msg_4", "received", "0"],
    ]);
    expect(await page.$$eval("#wh-events tr.lapsed th", (t) => t.map((e) => e.textContent))).toEqual(["msg_3"]);
    // One status only.
    await page.select("#wh-status", "processed");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll("#wh-events tbody tr").length === 1, { timeout: 30_000 });
    expect((await rows("#wh-events"))[0][0]).toBe("msg_1");
    await page.select("#wh-status", "");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll("#wh-events tbody tr").length === 4, { timeout: 30_000 });
    await shot("webhooks");
  });

  it("a list longer than the view loads says it shows only the first items: 1 001 events of one source", async () => {
    await ok("PUT", "/v1/webhooks/sources/bulk", { secret: newSecret() });
    await sql(
      suite.db,
      "INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, payload) SELECT 'bulk', 'bulk_' || i, now(), '{}' FROM generate_series(1, 1001) i",
    );
    // The sources are read when the view opens: away and back.
    await openView("inventory", "Inventory");
    await openView("webhooks", "Webhooks");
    await page.waitForFunction(() => [...document.querySelectorAll("#wh-source option")].some((o) => o.textContent === "bulk"), { timeout: 30_000 });
    await page.select("#wh-source", "bulk");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#wh-events caption")?.textContent?.startsWith("Events of bulk"), { timeout: 30_000 });
    expect(await text("#wh-out .truncated")).toBe("Only the first 1000 events are shown, and counted; narrow the query to see the rest.");
    expect(await text("#wh-events caption")).toBe("Events of bulk (the first 1000); lapsed claims are highlighted");
    expect(await text("#wh-received")).toBe("1000");
    await shot("webhooks-truncated");
    // The source of the other tests again, whose events all fit: no note.
    await page.select("#wh-source", "billing");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#wh-events caption")?.textContent?.startsWith("Events of billing"), { timeout: 30_000 });
    expect(await page.$("#wh-out .truncated")).toBeNull();
  });

  it("webhooks: a forwarding source's target and its dead letter, highlighted", async () => {
    // Forwarded to a loopback port nothing listens on, with no retries: the one attempt fails, the event is failed.
    const secret = newSecret();
    await ok("PUT", "/v1/webhooks/sources/outbound", { secret, forward: { url: "http://127.0.0.1:9/hooks", secret: newSecret(), retry_schedule_ms: [] } });
    const body = JSON.stringify({ type: "invoice.paid", id: "msg_out" });
    const r = await fetch(`${ownSocket(suite.worker)}/v1/webhooks/outbound`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders([secret], "msg_out", Math.floor(Date.now() / 1000), body) },
      body,
    });
    expect(r.status).toBe(200);
    await until(async () => (await ok("GET", "/v1/webhooks/outbound/events?status=failed")).items.length === 1, 60_000, "the delivery failed");
    await openView("inventory", "Inventory");
    await openView("webhooks", "Webhooks");
    await page.waitForFunction(() => [...document.querySelectorAll("#wh-source option")].some((o) => o.textContent === "outbound"), { timeout: 30_000 });
    await page.select("#wh-source", "outbound");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#wh-events caption")?.textContent?.startsWith("Events of outbound"), { timeout: 30_000 });
    expect(await text("#wh-forward")).toBe("Forwarded to http://127.0.0.1:9/hooks.");
    expect([await text("#wh-pending"), await text("#wh-delivered"), await text("#wh-failed")]).toEqual(["0", "0", "1"]);
    expect((await rows("#wh-events")).map((row) => [row[0], row[6]])).toEqual([["msg_out", "failed after 1"]]);
    expect(await page.$$eval("#wh-events tr.lapsed th", (t) => t.map((e) => e.textContent))).toEqual(["msg_out"]);
    await shot("webhooks-forward-failed");
    await page.select("#wh-source", "billing");
    await page.click('#wh-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector("#wh-events caption")?.textContent?.startsWith("Events of billing"), { timeout: 30_000 });
  });

  it("is readable on a phone: the webhooks and rate-limit views at 390 px wide", async () => {
    await page.setViewport({ width: 390, height: 844 });
    await shot("phone-webhooks");
    await openView("ratelimits", "Rate limits");
    await page.waitForSelector("#rl-admitted", { timeout: 30_000 });
    // The chart is drawn again at the phone's width.
    await page.waitForFunction(() => (document.querySelector("#rl-usage .chart canvas")?.getBoundingClientRect().width ?? Infinity) <= 390, {
      timeout: 30_000,
    });
    await shot("phone-ratelimits");
    // Nothing but the tables' own scroll areas is wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewport({ width: 1280, height: 900 });
  });

  it("the keyboard reaches the nav and opens a view with Enter", async () => {
    await page.focus('nav a[data-view="inventory"]');
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !(document.querySelector("#view-inventory") as HTMLElement).hidden, { timeout: 30_000 });
    // Enter left the focus on the link it opened, and Tab goes on to the next one in the nav.
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.view ?? document.activeElement?.tagName);
    expect(await focused()).toBe("inventory");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("permits");
    expect(await page.evaluate(() => document.activeElement?.closest("nav") !== null)).toBe(true);
  });

  it("calls nothing but the Worker, keeps the token out of URLs and localStorage, and logs no errors but the refused token", async () => {
    expect(requested.length).toBeGreaterThan(0);
    const external = requested.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin);
    expect(external).toEqual([]);
    expect(requested).toEqual(
      expect.arrayContaining([
        `${origin}/dashboard`,
        `${origin}/dashboard/app.js`,
        `${origin}/dashboard/style.css`,
        `${origin}/dashboard/vendor/uPlot.iife.min.js`,
        `${origin}/dashboard/vendor/uPlot.min.css`,
      ]),
    );
    expect(requested.filter((u) => u.includes(TOKEN) || u.includes("not-the-token"))).toEqual([]);
    // Only the wrong token's calls failed, with 401.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((f) => f.status !== 401)).toEqual([]);
    expect(consoleErrors.filter((m) => !m.includes("401"))).toEqual([]);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.getItem("admit.token")])).toEqual([0, TOKEN]);
  });

  it("works with a read-only key; Keys & audit shows the keys (no secrets) and the changes to a key that may read them, and says so to one that may not", async () => {
    const useToken = async (t: string) => {
      await page.type("#token", t);
      await page.click('#token-form button[type="submit"]');
    };
    const reader = await ok("POST", "/v1/keys", { name: "dashboard", scopes: ["*:read"] });
    const narrow = await ok("POST", "/v1/keys", {
      name: "views-only",
      scopes: ["ratelimits:read", "reservations:read", "locks:read", "semaphores:read", "inventory:read", "webhooks:read"],
    });
    await useToken(reader.secret);
    await openView("webhooks", "Webhooks");
    await page.waitForFunction(() => document.querySelectorAll("#wh-events tbody tr").length >= 4, { timeout: 30_000 });
    await openView("access", "Keys & audit");
    await page.waitForSelector("#ac-audit-table", { timeout: 30_000 });
    const keys = await rows("#ac-key-table");
    expect(keys.map((r) => r[0])).toEqual(expect.arrayContaining(["dashboard", "views-only"]));
    expect(keys.find((r) => r[0] === "dashboard")?.slice(1, 4)).toEqual([`${reader.secret.slice(0, 12)}…`, "*:read", "any"]);
    const audit = await rows("#ac-audit-table");
    expect(audit.some((r) => r[1] === "root" && r[2] === "ratelimits.policy.put" && r[3] === "api-demo")).toBe(true);
    expect(await page.evaluate(() => document.body.textContent)).not.toContain(reader.secret.slice(12));
    await shot("keys-audit");

    // Switching to the narrow key: what the reader's key read leaves the screen at once, before the
    // narrow key's answers come, and an answer to the reader's key that lands after the switch is not
    // shown. Requests are held in the browser (request interception) so both moments are certain.
    const held: { reader: HTTPRequest[]; narrow: HTTPRequest[] } = { reader: [], narrow: [] };
    let holdNarrow = true;
    const hold = (r: HTTPRequest) => {
      const auth = r.headers().authorization;
      if (auth === `Bearer ${reader.secret}` && r.url().includes("/v1/audit")) held.reader.push(r);
      else if (auth === `Bearer ${narrow.secret}` && holdNarrow) held.narrow.push(r);
      else void r.continue();
    };
    await page.setRequestInterception(true);
    page.on("request", hold);
    try {
      await page.click('#ac-form button[type="submit"]');
      await until(async () => held.reader.length === 1, 30_000, "the reader's audit request reached the browser's network layer");
      await useToken(narrow.secret);
      for (const id of ["#ac-keys", "#ac-audit", "#rl-policies", "#rl-lists", "#rl-usage", "#wh-out", "#pm-semaphores"])
        expect([id, await text(id)]).toEqual([id, ""]);
      await until(async () => held.narrow.length > 0, 30_000, "the narrow key's first request reached the browser's network layer");
      holdNarrow = false;
      for (const r of held.narrow.splice(0)) void r.continue();
      await page.waitForFunction(
        () =>
          document.querySelector("#ac-keys")?.textContent?.includes("may not read") &&
          document.querySelector("#ac-audit")?.textContent?.includes("may not read"),
        { timeout: 30_000 },
      );
      const late = page.waitForResponse((res) => res.request() === held.reader[0], { timeout: 30_000 });
      void held.reader[0].continue();
      expect((await late).status()).toBe(200);
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 30_000 });
    } finally {
      page.off("request", hold);
      await page.setRequestInterception(false);
    }
    expect(await text("#ac-keys")).toBe("This key may not read keys (This key lacks the scope keys:read.).");
    expect(await text("#ac-audit")).toBe("This key may not read the audit log (This key lacks the scope audit:read.).");
    expect(await page.$eval("#problem", (e) => (e as HTMLElement).hidden)).toBe(true);
    await openView("inventory", "Inventory");
    await retype("#inv-item", "hotel-double");
    await submitAndWait("#inv-form", "#inv-grid");
    expect(await page.$eval("#problem", (e) => (e as HTMLElement).hidden)).toBe(true);

    // Forget: nothing read with the token stays on screen.
    await page.click("#forget");
    expect(await text("#auth-status")).toBe("No token yet.");
    expect(await text("#inv-out")).toBe("");
    expect(await page.$("#inv-grid")).toBeNull();
  });
});
