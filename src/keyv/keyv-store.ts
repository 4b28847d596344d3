/**
 * A Keyv storage adapter over a cachette cache: Keyv (and cache-manager 7, and
 * `@nestjs/cache-manager`, both built on it) read and write through cachette's engine, so their
 * calls are folded into one round trip per tick, guarded by its timeouts and breaker, and share
 * the key space of the rest of the app. Keyv serializes values itself (a string with its own
 * `expires`) and prefixes keys with its namespace (`keyv:`), as it does for every adapter; the
 * cache stores what Keyv hands it with the TTL Keyv gives.
 */
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { adapterCache } from '../cache/store-or-cache.ts';
import type { Cache } from '../cache/types.ts';
import type { Store } from '../store/types.ts';

/** Keys read back per step while iterating, and deleted per step while clearing a namespace. */
const WALK_BATCH = 256;

type ErrorListener = (error: unknown) => void;

/**
 * The Keyv error listeners of each cache, fed by one listener on its events: an app builds a
 * Keyv (and so an adapter) per use over one cache, and one EventTarget listener each would pile up.
 */
const errorListeners = new WeakMap<Cache, Set<ErrorListener>>();

function listenForErrors(cache: Cache): Set<ErrorListener> {
  let listeners = errorListeners.get(cache);
  if (!listeners) {
    const all = new Set<ErrorListener>();
    cache.events.addEventListener('error', (event) => {
      for (const listener of all) listener(event.detail.error);
    });
    errorListeners.set(cache, all);
    listeners = all;
  }
  return listeners;
}

/**
 * What Keyv reads in `opts`. Keyv builds `keyv.iterator()` only for the adapter dialects on its
 * own list (`iterableAdapters` in keyv), whatever the adapter implements: this one follows the
 * iterator contract of the `redis` dialect (the namespace is passed in; it yields
 * `[namespaced key, raw value]`), so it says `redis`. Nothing else in Keyv reads the dialect.
 */
export interface KeyvCachetteOptions {
  dialect: 'redis';
  url: string;
  [option: string]: unknown;
}

/** The Keyv adapter of {@link keyvStore}. */
export class KeyvCachetteStore implements KeyvStoreAdapter {
  /** What Keyv reads of an adapter's options (see {@link KeyvCachetteOptions}). */
  opts: KeyvCachetteOptions = { dialect: 'redis', url: 'cachette:' };
  /** Set by Keyv to its namespace (default `keyv`): `clear()` and `iterator()` stay inside it. */
  namespace?: string | undefined;
  /** The cache this adapter reads and writes through. */
  readonly cache: Cache;
  readonly #owned: boolean;
  readonly #errorListeners = new Set<ErrorListener>();

  constructor(storeOrCache: Store | Cache) {
    const { cache, owned } = adapterCache(storeOrCache, 'keyvStore()');
    this.cache = cache;
    this.#owned = owned;
  }

  /** Keyv's listener for `error`: fed with the cache's store failures (which are misses for Keyv). Other events never fire. */
  on(event: string, listener: (...arguments_: unknown[]) => void): this {
    if (event === 'error') {
      this.#errorListeners.add(listener);
      listenForErrors(this.cache).add(listener);
    }
    return this;
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.cache.get<StoredData<Value>>(key);
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return this.cache.getMany<StoredData<Value>>(keys);
  }

  /** Resolves false when the value was not stored (the store failed, or it is above `maxValueBytes`). */
  set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    return this.cache.set(key, value, ttlOption(ttl));
  }

  /** One round trip for every entry. A failure is an `error` event (as Keyv's adapters report one), not a rejection. */
  async setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    await this.cache.setMany(entries.map(({ key, value, ttl }) => ({ key, value, ...ttlOption(ttl) })));
  }

  /** True when the key existed. */
  async delete(key: string): Promise<boolean> {
    return (await this.cache.delete(key)) > 0;
  }

  /** True when at least one of the keys existed. */
  async deleteMany(keys: string[]): Promise<boolean> {
    return (await this.cache.delete(keys)) > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.cache.has(key);
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    return (await this.cache.getMany(keys)).map((value) => value !== undefined);
  }

  /**
   * Removes this namespace's keys only, listed through the cache (needs a store that lists keys:
   * memory, valkey, sqlite, upstash); without a namespace, every key of the cache (`cache.clear()`).
   */
  async clear(): Promise<void> {
    if (!this.namespace) return this.cache.clear();
    let batch: string[] = [];
    for await (const key of this.cache.keys(`${this.namespace}:`)) {
      batch.push(key);
      if (batch.length === WALK_BATCH) {
        await this.cache.delete(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await this.cache.delete(batch);
  }

  /**
   * Every fresh entry under `namespace` as `[key, raw value]` (Keyv strips the namespace and
   * deserializes), read back in batches as the walk goes (needs a store that lists keys).
   */
  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    let batch: string[] = [];
    const readBack = async function* (cache: Cache, keys: string[]): AsyncGenerator<Array<string | Awaited<Value> | undefined>> {
      const values = await cache.getMany<Awaited<Value>>(keys);
      for (let i = 0; i < keys.length; i++) if (values[i] !== undefined) yield [keys[i]!, values[i]!];
    };
    for await (const key of this.cache.keys(namespace ? `${namespace}:` : '')) {
      batch.push(key);
      if (batch.length === WALK_BATCH) {
        yield* readBack(this.cache, batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield* readBack(this.cache, batch);
  }

  /** Closes the cache this adapter opened over a store (and so the store); a cache you passed stays open. */
  async disconnect(): Promise<void> {
    const listeners = errorListeners.get(this.cache);
    for (const listener of this.#errorListeners) listeners?.delete(listener);
    this.#errorListeners.clear();
    if (this.#owned) await this.cache.close();
  }
}

/** Keyv's TTL (ms; 0 or absent: none) as the cache's per-write option. */
function ttlOption(ttl: number | undefined): { ttl: number } | undefined {
  return typeof ttl === 'number' && ttl > 0 ? { ttl } : undefined;
}

/**
 * A Keyv storage adapter over any cachette store or cache:
 *
 * ```ts
 * const keyv = new Keyv({ store: keyvStore(valkeyStore('redis://127.0.0.1:6379')) });
 * const cache = createCache({ stores: [keyv] }); // cache-manager 7
 * ```
 *
 * Given a store, it builds a cache over it (closed by `keyv.disconnect()`); given a cache, it
 * shares it (its prefix, timeouts, L1 and events) and leaves it open.
 */
export function keyvStore(storeOrCache: Store | Cache): KeyvCachetteStore {
  return new KeyvCachetteStore(storeOrCache);
}
