/**
 * An unstorage driver over a cachette cache: `useStorage()` in Nitro and Nuxt (and any
 * `createStorage()`) reads and writes through cachette's engine, with its folding, timeouts,
 * breaker and key space; the cached functions Nitro stores under the mount can be tagged, so
 * that `cache.invalidateTags` from any process makes them misses.
 *
 * unstorage hands a driver keys already normalised (`a:b:c`) and values already serialized
 * (`setItem` gets a string, `setItemRaw` bytes); TTLs are in seconds, as its other drivers take
 * them. The cache stores each value as it is given, under `base:key`.
 *
 * `watch` exists where the store has a coherence bus (valkey: one server or a cluster;
 * bun-redis; sqlite, which refuses it): a watcher on the bus hears every write and removal
 * announced there by any process (watch.ts). Elsewhere the driver has none, and unstorage
 * reports the writes made through the same storage itself, as for any driver without one.
 */
import type { Driver, GetKeysOptions, StorageMeta, TransactionOptions } from 'unstorage';
import { engineView } from '../cache/engine-view.ts';
import { adapterCache } from '../cache/store-or-cache.ts';
import type { Cache, SetOptions } from '../cache/types.ts';
import type { Store } from '../store/types.ts';
import { checkKnownOptions, checkOptionsObject } from '../util/known-options.ts';
import { busWatch } from './watch.ts';

/** Options of {@link cachetteDriver}. */
export interface CachetteDriverOptions {
  /**
   * Where items live: a cachette store (the driver builds a cache over it, closed by
   * `storage.dispose()`; over a store with a coherence bus, with `l1: { consistency: 'coherent' }`,
   * so that its writes reach every `watch`), or a cache from `createCache()` (shared: its prefix,
   * timeouts, L1 and events apply, and `cache.invalidateTags` reaches the items the driver tagged;
   * `watch` needs it to have the coherent L1).
   */
  store: Store | Cache;
  /** A key segment in front of every item, so that `getKeys` and `clear` stay inside it. Default: none. */
  base?: string;
  /** TTL in seconds for writes that give none (`{ ttl }` per write wins). Default: none. */
  ttl?: number;
  /**
   * The tags of an item, from its key (as the driver sees it, without `base`): e.g. every
   * Nitro cached function `nitro:functions:user:…` tagged `users`, then `cache.invalidateTags(['users'])`.
   */
  tags?: (key: string) => readonly string[];
}

const KNOWN: ReadonlyArray<keyof CachetteDriverOptions> = ['store', 'base', 'ttl', 'tags'];
/** Keys removed per call while clearing. */
const CLEAR_BATCH = 256;
const DRIVER_NAME = 'cachette';

/** The driver object of {@link cachetteDriver}, with the cache it works through. */
export type CachetteDriver = Driver<CachetteDriverOptions, Cache>;

/** Builds the driver; see {@link CachetteDriverOptions}. The entry wraps it in unstorage's `defineDriver`. */
export function createCachetteDriver(options: CachetteDriverOptions): CachetteDriver {
  checkOptionsObject(options, 'cachetteDriver()');
  checkKnownOptions(options, KNOWN, 'cachetteDriver()');
  // Over a store with a bus, the driver's own cache announces its writes there (the coherent L1's write side), for watchers.
  const busStore = typeof (options.store as Partial<Store> | undefined)?.coherence === 'function';
  const { cache, owned } = adapterCache(options.store, 'cachetteDriver()', busStore ? { l1: { consistency: 'coherent' } } : {});
  const view = engineView(cache);
  const base = (options.base ?? '').replace(/:+$/, '');
  if (options.ttl !== undefined && !(Number.isFinite(options.ttl) && options.ttl > 0))
    throw new RangeError(`cachetteDriver(): "ttl" is in seconds and must be a positive number, got ${String(options.ttl)}`);
  if (options.tags !== undefined && typeof options.tags !== 'function') throw new TypeError('cachetteDriver(): "tags" must be a function of the key');
  const tagsOf = options.tags;
  const full = (key: string) => (base ? `${base}:${key}` : key);
  const relative = (key: string) => (base ? key.slice(base.length + 1) : key);
  /** The item key of a cache key, or undefined when it lies outside `base`. */
  const inBase = (key: string) => (!base ? key : key.startsWith(`${base}:`) ? relative(key) : undefined);
  /** The cache's options for a write of `key`: its TTL (seconds → ms) and its tags. */
  const writeOptions = (key: string, transaction: TransactionOptions | undefined): SetOptions | undefined => {
    const seconds = (transaction?.ttl as number | undefined) ?? options.ttl;
    if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) throw new RangeError(`cachetteDriver(): a "ttl" is in seconds and must be a positive number, got ${String(seconds)}`);
    const tags = tagsOf?.(key);
    if (seconds === undefined && (tags === undefined || tags.length === 0)) return undefined;
    return { ...(seconds === undefined ? {} : { ttl: seconds * 1000 }), ...(tags && tags.length > 0 ? { tags } : {}) };
  };
  /** Every item key under `under` (a base unstorage hands in: `a:b:`, or none), as the driver names them. */
  const listed = async function* (under: string | undefined): AsyncGenerator<string> {
    const segment = (under ?? '').replace(/:+$/, '');
    const prefix = segment ? `${full(segment)}:` : base ? `${base}:` : '';
    for await (const key of cache.keys(prefix)) yield relative(key);
  };

  const watch = view?.store.coherence === undefined ? undefined : busWatch(view, inBase);

  return {
    name: DRIVER_NAME,
    options,
    flags: { ttl: true },
    ...(watch && { watch: watch.watch }),
    getInstance: () => cache,
    async hasItem(key) {
      return cache.has(full(key));
    },
    async getItem(key) {
      return (await cache.get(full(key))) ?? null;
    },
    async getItems(items) {
      const values = await cache.getMany(items.map((item) => full(item.key)));
      return items.map((item, i) => ({ key: item.key, value: values[i] ?? null }));
    },
    async getItemRaw(key) {
      return (await cache.get(full(key))) ?? null;
    },
    async setItem(key, value, transaction) {
      await cache.set(full(key), value, writeOptions(key, transaction));
    },
    async setItems(items, common) {
      await cache.setMany(items.map((item) => ({ key: full(item.key), value: item.value, ...writeOptions(item.key, { ...common, ...item.options }) })));
    },
    async setItemRaw(key, value, transaction) {
      await cache.set(full(key), value, writeOptions(key, transaction));
    },
    async removeItem(key) {
      await cache.delete(full(key));
    },
    async getMeta(key): Promise<StorageMeta | null> {
      const found = await cache.inspect(full(key));
      if (found.state !== 'fresh' || found.age === undefined) return null;
      const meta: StorageMeta = { mtime: new Date(Date.now() - found.age) };
      if (found.ttl !== undefined && Number.isFinite(found.ttl)) meta.ttl = Math.ceil(found.ttl / 1000);
      return meta;
    },
    async getKeys(under: string | undefined, _options: GetKeysOptions) {
      const keys: string[] = [];
      for await (const key of listed(under)) keys.push(key);
      return keys;
    },
    async clear(under: string | undefined) {
      let batch: string[] = [];
      for await (const key of listed(under)) {
        batch.push(full(key));
        if (batch.length === CLEAR_BATCH) {
          await cache.delete(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await cache.delete(batch);
    },
    async dispose() {
      await watch?.closeAll();
      if (owned) await cache.close();
    },
  };
}
