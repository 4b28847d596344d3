/** A duration: milliseconds as a number, or a string such as `"250ms"`, `"10s"`, `"5m"`, `"1h"`, `"1d"`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * The longest finite duration accepted, in ms (about 285,000 years): every store can still
 * add it to "now" and send it as an integer. Beyond it, use `Infinity` (no expiry).
 */
export const MAX_FINITE_MS = Number.MAX_SAFE_INTEGER - 2 ** 42;

/**
 * Turns a {@link Duration} into milliseconds. `Infinity` is allowed (no expiry). Throws a
 * RangeError naming `what` for anything negative, NaN, unparsable, or finite but too large
 * for a store to represent (which would otherwise fail every write later, far from the typo).
 */
export function toMs(value: Duration, what: string): number {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else {
    const match = typeof value === 'string' ? PATTERN.exec(value.trim()) : null;
    if (!match) throw new RangeError(`${what} must be a non-negative number of milliseconds or a string like "10s", got ${JSON.stringify(value)}`);
    ms = Number(match[1]) * UNITS[match[2]!]!;
  }
  if (!(ms >= 0)) throw new RangeError(`${what} must be a non-negative number of milliseconds or a string like "10s", got ${value}`); // also rejects NaN
  if (ms > MAX_FINITE_MS && ms !== Infinity) throw new RangeError(`${what} of ${value} ms is too large for any store; use Infinity for "never"`);
  return ms;
}
