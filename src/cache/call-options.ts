/**
 * The per-call options of the engine's methods, checked on every call that passes some (a
 * call without options pays nothing): a misspelt `ttL` would otherwise store the value with
 * the default lifetime, in silence. See `callOptionsCheck` for what the check costs.
 */
import { toMs, type Duration } from '../util/duration.ts';
import { callOptionsCheck } from '../util/known-options.ts';
import type { GetOrSetOptions, SetManyEntry, SetOptions } from './types.ts';

/**
 * What options given as a bare duration meant: `set(key, value, 30000)` (cache-manager's and
 * Keyv's habit) or `'30s'` is a ttl, which cachette takes as `{ ttl }`. Undefined for
 * anything that is no duration.
 */
export function ttlHint(options: unknown): string | undefined {
  if (typeof options !== 'number' && typeof options !== 'string') return undefined;
  try {
    toMs(options as Duration, 'ttl');
  } catch {
    return undefined;
  }
  return `to give a ttl, pass { ttl: ${JSON.stringify(options)} }`;
}

/** `set`, a factory's `ctx.setOptions`: { ttl, grace, ttlJitter, tags }. */
export const checkSetOptions = callOptionsCheck(['ttl', 'grace', 'ttlJitter', 'tags'] satisfies ReadonlyArray<keyof SetOptions>, ttlHint);

/** Every option of `getOrSet`: what is stored, and how the call behaves. */
export const GET_OR_SET_OPTIONS = [
  'ttl',
  'grace',
  'ttlJitter',
  'tags',
  'waitUntil',
  'refreshAhead',
  'xfetch',
  'negativeTtl',
  'staleIfError',
  'graceBackoff',
  'schema',
  'version',
] as const satisfies ReadonlyArray<keyof GetOrSetOptions>;

/** `getOrSet`: {@link GET_OR_SET_OPTIONS}. */
export const checkGetOrSetOptions = callOptionsCheck(GET_OR_SET_OPTIONS, ttlHint);

/** One entry of `setMany`: the key and value, and the same options as `set`. */
export const checkSetManyEntry = callOptionsCheck(['key', 'value', 'ttl', 'grace', 'ttlJitter', 'tags'] satisfies ReadonlyArray<keyof SetManyEntry>);

/** `incr`: { ttl }, which applies when the counter is created. */
export const checkIncrOptions = callOptionsCheck(['ttl'], ttlHint);
