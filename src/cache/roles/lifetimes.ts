import { toMs } from '../../util/duration.ts';
import type { GetOrSetOptions } from '../types.ts';
import { checkTtlJitter, type Jitter } from './jitter.ts';

/** How long a value lives: fresh for `freshFor` ms, then servable stale for `staleFor` more. */
export interface Lifetimes {
  freshFor: number;
  staleFor: number;
  /**
   * `staleIfError`: for how long after `freshFor` the value is kept so that it can be served
   * when its source fails (longer than `staleFor`; undefined: no such window).
   */
  errorFor?: number;
  /** `ttlJitter`: taken off `freshFor` at random when an entry is written (see jittered). */
  jitter?: Jitter | undefined;
}

/**
 * The lifetimes `options` ask for, each one it leaves out taken from `base` (the cache's
 * defaults for a call, the call's own for a factory's `ctx.setOptions`).
 */
export function lifetimesOf(options: Pick<GetOrSetOptions, 'ttl' | 'grace' | 'staleIfError' | 'ttlJitter'>, base: Lifetimes): Lifetimes {
  if (options.ttl === undefined && options.grace === undefined && options.staleIfError === undefined && options.ttlJitter === undefined) return base;
  const freshFor = options.ttl === undefined ? base.freshFor : toMs(options.ttl, 'ttl');
  const staleFor = options.grace === undefined ? base.staleFor : toMs(options.grace, 'grace');
  if (freshFor === 0 && staleFor === 0) throw new RangeError('cachette: a ttl of 0 with no grace would store nothing; use delete() to remove a key');
  const errorFor = options.staleIfError === undefined ? base.errorFor : toMs(options.staleIfError, 'staleIfError');
  if (options.staleIfError !== undefined && !(errorFor! > staleFor)) {
    throw new RangeError(`cachette: staleIfError (${errorFor} ms) must be longer than grace (${staleFor} ms): within grace a stale value is served anyway`);
  }
  const jitter = options.ttlJitter === undefined ? base.jitter : checkTtlJitter(options.ttlJitter, 'ttlJitter');
  const lifetimes: Lifetimes = errorFor === undefined ? { freshFor, staleFor } : { freshFor, staleFor, errorFor };
  if (jitter !== undefined) lifetimes.jitter = jitter;
  return lifetimes;
}

/** For how long after it is fresh an entry is kept: its grace, or its stale-if-error window when longer. */
export function keptFor(lifetimes: Lifetimes): number {
  return Math.max(lifetimes.staleFor, lifetimes.errorFor ?? 0);
}

/**
 * The lifetimes one write stores: `lifetimes` with a uniform random part of its jitter taken
 * off the fresh time, in whole ms (never all of it: `random()` is below 1). An endless ttl has nothing to
 * spread and is left alone, as are lifetimes without jitter.
 */
export function jittered(lifetimes: Lifetimes, random: () => number = Math.random): Lifetimes {
  const { jitter, freshFor } = lifetimes;
  if (jitter === undefined || !Number.isFinite(freshFor) || freshFor === 0) return lifetimes;
  const most = 'fraction' in jitter ? jitter.fraction * freshFor : Math.min(jitter.ms, freshFor);
  return { ...lifetimes, freshFor: freshFor - Math.floor(random() * most), jitter: undefined };
}
