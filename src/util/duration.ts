/** A duration: milliseconds as a number, or a string such as `"250ms"`, `"10s"`, `"5m"`, `"1h"`, `"1d"`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Turns a {@link Duration} into milliseconds. `Infinity` is allowed (no expiry).
 * Throws a RangeError naming `what` for anything negative, NaN or unparsable.
 */
export function toMs(value: Duration, what: string): number {
  if (typeof value === 'number') {
    if (value >= 0) return value; // also rejects NaN
    throw new RangeError(`${what} must be a non-negative number of milliseconds or a string like "10s", got ${value}`);
  }
  const match = typeof value === 'string' ? PATTERN.exec(value.trim()) : null;
  if (!match) throw new RangeError(`${what} must be a non-negative number of milliseconds or a string like "10s", got ${JSON.stringify(value)}`);
  return Number(match[1]) * UNITS[match[2]!]!;
}
