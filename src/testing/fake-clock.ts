/**
 * A clock a test moves by hand. The engine reads the time only through `createCache({ clock })`
 * (freshness, grace, refresh-ahead, the breaker's cooldown, and the deadline of each store call,
 * which a real timer checks every quarter of the `timeout`) and the memory store through
 * `memoryStore({ clock })` (its TTLs), so advancing this clock ages entries at once instead of
 * sleeping: a test of a one-hour TTL runs in microseconds and never depends on the host's speed.
 * A factory's `timeout` and the fill lock's `lockTimeout` stay on real timers: they bound waits
 * for code the test runs itself.
 */
import type { Clock } from '../cache/clock.ts';
import { type Duration, toMs } from '../util/duration.ts';

/** A {@link Clock} that stands still until told to move. */
export interface FakeClock extends Clock {
  /** Moves the time forward by `by` (ms or a duration such as `'5m'`); resolves the new time. */
  advance(by: Duration): number;
  /** Sets the time to `at` (ms since the epoch); it may not go back, as no real clock the engine trusts does. */
  set(at: number): void;
}

/**
 * A clock that starts at `start` (ms since the epoch; default 2026-01-01T00:00:00Z, a fixed
 * instant so that what a test prints does not change from run to run) and moves only when
 * {@link FakeClock.advance} or {@link FakeClock.set} says.
 */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  if (!Number.isFinite(start) || start < 0) throw new TypeError(`fakeClock: start must be a finite, non-negative number of ms since the epoch, got ${String(start)}`);
  let now = start;
  return {
    now: () => now,
    advance(by) {
      const ms = toMs(by, 'fakeClock.advance');
      // toMs refuses negative durations (time moves forward only); Infinity would end time.
      if (ms === Infinity) throw new RangeError('fakeClock.advance: by must be finite');
      now += ms;
      return now;
    },
    set(at) {
      if (!Number.isFinite(at)) throw new TypeError(`fakeClock.set: at must be a finite number of ms since the epoch, got ${String(at)}`);
      if (at < now) throw new RangeError(`fakeClock.set: ${at} is before the clock's time ${now}; time moves forward only`);
      now = at;
    },
  };
}
