// What stays live while a view is open: every "time left" counts down each second and, when asked,
// the view reloads itself every 2 s. stopLive() ends both (another view opened, a refused token, a
// new token).
import { duration } from "./format.js";

const LIVE_MS = 2000;
let liveTimer;
let ticker;

/** Starts the countdowns and, with `refresh`, calls it every 2 s; stops what ran before. */
export function startLive(refresh) {
  stopLive();
  ticker = setInterval(() => {
    for (const s of document.querySelectorAll(".time-left")) s.textContent = duration(Date.parse(s.dataset.expires) - Date.now());
  }, 1000);
  if (refresh) liveTimer = setInterval(refresh, LIVE_MS);
}

export function stopLive() {
  clearInterval(liveTimer);
  clearInterval(ticker);
}
