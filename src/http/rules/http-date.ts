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
  const text = value.trim().toLowerCase();
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(+match[3]!, match[2]!, +match[1]!, +match[4]!, +match[5]!, +match[6]!);
  match = RFC850.exec(text);
  if (match) {
    // Two-digit years (§5.6.7): read as the nearest matching century, 1970–2069.
    const twoDigitYear = +match[3]!;
    return utc(twoDigitYear < 70 ? 2000 + twoDigitYear : 1900 + twoDigitYear, match[2]!, +match[1]!, +match[4]!, +match[5]!, +match[6]!);
  }
  match = ASCTIME.exec(text);
  if (match) return utc(+match[6]!, match[1]!, +match[2]!, +match[3]!, +match[4]!, +match[5]!);
  return undefined;
}

function utc(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | undefined {
  const month = MONTHS[monthName];
  if (month === undefined || hour > 23 || minute > 59 || second > 60) return undefined;
  const time = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is invalid, not a different day.
  return new Date(time).getUTCDate() === day ? time : undefined;
}

/** Formats `ms` as an IMF-fixdate. */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
