// How times and durations are shown: in UTC, whatever the browser's time zone or locale.
import { el } from "./dom.js";

/** "2030-05-01 09:00:00 UTC" */
export function utc(iso) {
  if (!iso) return "—";
  return `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "1 h 2 min", "12 s", "450 ms" */
export function duration(ms) {
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

export const timeLeft = (expires) => el("span", { class: "time-left", "data-expires": expires }, duration(Date.parse(expires) - Date.now()));

/** "2030-05-01T08:00Z" */
export const toUtcMinute = (d) => `${d.toISOString().slice(0, 16)}Z`;
/** "2030-05-01" */
export const toUtcDate = (d) => d.toISOString().slice(0, 10);
