/**
 * Where the engine reads the time. Freshness, grace, timeouts and the circuit breaker all ask
 * this one clock, so a test can move time forward instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
