// The keys and audit view (keys:read and audit:read; docs/api-keys.md). Secrets are never listed.
import { ApiError, all } from "./api.js";
import { $, el, table, truncatedNote } from "./dom.js";
import { utc } from "./format.js";

/** One part of the view: its rows, or the 403 of a key without that scope, said in place. */
export async function orForbidden(load, out, what) {
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

export async function showAudit() {
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

export async function loadAccess() {
  await orForbidden(showKeys, $("ac-keys"), "keys");
  await orForbidden(showAudit, $("ac-audit"), "the audit log");
}
