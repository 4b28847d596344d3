/**
 * What an ecosystem adapter (cachette/keyv, cachette/unstorage) stands on: a cache you already
 * have, whose prefix, timeouts, L1 and events it shares, or a store, over which it builds a cache
 * of its own that it closes with itself.
 */
import type { Store } from '../store/types.ts';
import { createCache } from './create-cache.ts';
import type { CacheOptions } from './options.ts';
import type { Cache } from './types.ts';

/** The cache an adapter works through, and whether it opened it (and so closes it). */
export interface AdapterCache {
  readonly cache: Cache;
  readonly owned: boolean;
}

/** True for a cache from `createCache()` (or anything with its shape), false for a store. */
export function isCache(value: Store | Cache): value is Cache {
  return typeof (value as Partial<Cache>).getOrSet === 'function' && typeof (value as Partial<Cache>).invalidateTags === 'function';
}

/**
 * The cache over `given`: the cache itself, or one created over the store with `creation` (a
 * store is told apart by its byte methods). Anything else is a TypeError naming `where`.
 */
export function adapterCache(given: Store | Cache | undefined, where: string, creation: Omit<CacheOptions, 'store'> = {}): AdapterCache {
  if (given === null || typeof given !== 'object') throw new TypeError(`${where}: needs a cachette store or a cache from createCache(), got ${given === null ? 'null' : typeof given}`);
  if (isCache(given)) return { cache: given, owned: false };
  const store = given as Partial<Store>;
  if (typeof store.get !== 'function' || typeof store.getMany !== 'function' || typeof store.set !== 'function' || typeof store.delete !== 'function') {
    throw new TypeError(`${where}: needs a cachette store (get, getMany, set, delete) or a cache from createCache()`);
  }
  return { cache: createCache({ ...creation, store: given as Store }), owned: true };
}
