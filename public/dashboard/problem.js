// What the page says when a load fails, and the one way every load is run.
import { ApiError, StaleAnswer, TOKEN_KEY } from "./api.js";
import { $, el } from "./dom.js";
import { InputError } from "./fields.js";
import { stopLive } from "./live.js";

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

export function clearProblem() {
  $("problem").hidden = true;
  $("problem").replaceChildren();
}

/** Runs a load; a failure shows its problem instead of throwing. */
export async function run(fn) {
  try {
    await fn();
    clearProblem();
  } catch (err) {
    if (err instanceof InputError || err instanceof StaleAnswer) return;
    if (err instanceof ApiError && err.status === 401) stopLive();
    showProblem(err);
  }
}
