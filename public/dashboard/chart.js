// The rate-limit view's chart: admitted and rejected per window, drawn by uPlot.
import { el, table } from "./dom.js";
import { duration, utc } from "./format.js";

/** The chart on screen (uPlot) and what resizes it: destroyed when the usage is drawn again. */
let plot;
let plotResize;

export function dropChart() {
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
export function chart(windows, windowMs, from, to) {
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
