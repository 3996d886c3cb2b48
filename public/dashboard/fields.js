// Dates and times are typed as UTC text (YYYY-MM-DD, YYYY-MM-DDTHH:MMZ), not the browser's date
// pickers: those show and read the browser's locale and time zone. What the page sends is what
// the reader typed, as UTC.
import { toUtcDate, toUtcMinute } from "./format.js";

/**
 * The input's UTC minute ("2030-05-01T08:00Z", also "2030-05-01 08:00") as RFC 3339
 * ("2030-05-01T08:00:00Z"); a value that is no such time is refused where it was typed.
 */
export function utcMinuteOf(input) {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})Z?$/i.exec(input.value.trim());
  const iso = m ? `${m[1]}T${m[2]}:00Z` : "";
  const t = Date.parse(iso); // NaN, or another day (2030-02-31), for a time that does not exist
  return checked(
    input,
    m && !Number.isNaN(t) && toUtcMinute(new Date(t)) === `${m[1]}T${m[2]}Z` ? iso : null,
    "a UTC time as YYYY-MM-DDTHH:MMZ, e.g. 2030-05-01T08:00Z",
  );
}

/** The input's UTC calendar day ("2030-06-01"); a value that is no such day is refused where it was typed. */
export function utcDateOf(input) {
  const v = input.value.trim();
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Number.NaN;
  const ok = !Number.isNaN(t) && toUtcDate(new Date(t)) === v;
  return checked(input, ok ? v : null, "a UTC date as YYYY-MM-DD, e.g. 2030-06-01");
}

/** `value`, or (null) the input marked invalid with what it wants, focused, and the load stopped. */
function checked(input, value, wanted) {
  input.setCustomValidity(value === null ? `Enter ${wanted}.` : "");
  if (value !== null) return value;
  input.reportValidity();
  input.focus();
  throw new InputError();
}

/** A typed value that is not what the field wants: the field says so; no problem box. */
export class InputError extends Error {}

/** A field's refusal is cleared as soon as the reader types in it again. */
export function watchFields() {
  for (const input of document.querySelectorAll("input[pattern]")) input.addEventListener("input", () => input.setCustomValidity(""));
}
