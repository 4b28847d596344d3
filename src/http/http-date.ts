/**
 * HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate plus the two obsolete forms recipients must
 * still accept. Anything else is `undefined`, never a guess: `Date.parse` would read "0" as
 * the year 2000 and ISO strings as valid dates.
 */

const MONTHS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };
const IMF_FIXDATE = /^[a-z]{3}, (\d{1,2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const RFC850 = /^[a-z]+, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const ASCTIME = /^[a-z]{3} ([a-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Milliseconds since the epoch, or `undefined` when `value` is not an HTTP-date. */
export function parseHttpDate(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  let m = IMF_FIXDATE.exec(v);
  if (m) return utc(+m[3]!, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  m = RFC850.exec(v);
  if (m) {
    // Two-digit years (§5.6.7): read as the nearest matching century, 1970–2069.
    const yy = +m[3]!;
    return utc(yy < 70 ? 2000 + yy : 1900 + yy, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  }
  m = ASCTIME.exec(v);
  if (m) return utc(+m[6]!, m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
  return undefined;
}

function utc(year: number, monthName: string, day: number, h: number, min: number, s: number): number | undefined {
  const month = MONTHS[monthName];
  if (month === undefined || h > 23 || min > 59 || s > 60) return undefined;
  const t = Date.UTC(year, month, day, h, min, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is invalid, not a different day.
  return new Date(t).getUTCDate() === day ? t : undefined;
}

/** Formats `ms` as an IMF-fixdate. */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
