import { toMs } from '../../util/duration.ts';
import type { SetOptions } from '../types.ts';

/** How long a value lives: fresh for `freshFor` ms, then servable stale for `staleFor` more. */
export interface Lifetimes {
  freshFor: number;
  staleFor: number;
}

/**
 * The lifetimes `options` ask for, each one it leaves out taken from `base` (the cache's
 * defaults for a call, the call's own for a factory's `ctx.setOptions`).
 */
export function lifetimesOf(options: Pick<SetOptions, 'ttl' | 'grace'>, base: Lifetimes): Lifetimes {
  if (options.ttl === undefined && options.grace === undefined) return base;
  const freshFor = options.ttl === undefined ? base.freshFor : toMs(options.ttl, 'ttl');
  const staleFor = options.grace === undefined ? base.staleFor : toMs(options.grace, 'grace');
  if (freshFor === 0 && staleFor === 0) throw new RangeError('cachette: a ttl of 0 with no grace would store nothing; use delete() to remove a key');
  return { freshFor, staleFor };
}
