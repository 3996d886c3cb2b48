// What a check answers when the deny/allow lists decided it (check.ts): a deny entry → 403
// `denied-by-list` with the entry and its reason; an allow entry → 200 `allowed: true`,
// `reason: "allow-list"`, nothing counted. 403 and not 429: a listed refusal does not end with a
// window, so a retry never helps, and a Retry-After would be a lie. Both carry
// `Admit-RateLimit-List: deny` / `allow` so a caller (or a gateway's log) can tell them from a limit's answer.
import { type ProblemError, problem } from "../../core/errors";
import type { ListMatch } from "./cache";

export const LIST_HEADER = "Admit-RateLimit-List";
/** The header a gateway (or Cloudflare's proxy) gives the client's country in. */
export const COUNTRY_HEADER = "CF-IPCountry";

/** The body of a check the allow list let through (200). */
export interface ListedBody {
  allowed: true;
  policy?: string;
  policies?: string[];
  key: string;
  reason: "allow-list";
  entry: ListMatch;
}

function describe(m: ListMatch): string {
  const what = { key: "the key", prefix: "the key prefix", ip: "the address", country: "the country" }[m.kind];
  const scope = m.policy === null ? "global" : `policy ${JSON.stringify(m.policy)}`;
  return `${what} ${JSON.stringify(m.value)} is on the ${scope} ${m.list} list${m.reason ? `: ${m.reason}` : ""}`;
}

/** The answer of a check the lists decided: `refused` (deny) or `listed` (allow). */
export type ListedAnswer = { kind: "listed"; body: ListedBody; headers: Record<string, string> } | { kind: "refused"; refusal: ProblemError };

export function listedAnswer(names: string[], who: { key: string }, m: ListMatch, multi: boolean): ListedAnswer {
  const headers = { [LIST_HEADER]: m.list };
  const scope = multi ? { policies: names } : { policy: names[0] };
  if (m.list === "deny") {
    const detail = `${JSON.stringify(who.key)} is refused: ${describe(m)}. Nothing was counted; a retry is refused alike.`;
    const refusal = problem("denied-by-list", detail, { ...scope, key: who.key, allowed: false, entry: m }, headers);
    return { kind: "refused", refusal };
  }
  return { kind: "listed", body: { allowed: true, ...scope, key: who.key, reason: "allow-list", entry: m }, headers };
}
