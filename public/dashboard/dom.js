// Small DOM helpers. Every text goes in through textContent (el's children), never innerHTML:
// names and payloads come from callers.

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
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
export function table(target, caption, headers, rows, rowClass = () => undefined) {
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

export function stat(label, value, id) {
  return el("div", {}, el("dt", {}, label), el("dd", { id }, value));
}

/** Says that a list shows only its first items (all() stopped at its `max`), or nothing. */
export function truncatedNote(list, what) {
  if (!list.truncated) return undefined;
  return el("p", { class: "truncated", role: "status" }, `Only the first ${list.length} ${what} are shown, and counted; narrow the query to see the rest.`);
}
