// This Worker's /v1 API as the dashboard reads it: GET only, with the token the reader typed in.
// The token lives in sessionStorage only (this tab, until it closes): it is sent in the
// Authorization header, never put in a URL, and never logged. An answer that arrives after the
// token changed is never shown.

export const TOKEN_KEY = "admit.token";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** An answer to a token that is no longer the tab's: never shown (what it holds was read with the old key). */
export class StaleAnswer extends Error {}

/** GET `path` (with `query`) from this Worker's API; throws ApiError for a problem answer. */
export async function api(path, query = {}) {
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
export async function all(path, query = {}, max = 5000) {
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
