// What `import 'cachette'` gives on Node: node:zlib's native deflate as the default compressor.
import '../../runtimes/native/install.ts';
import type { CompressionOptions } from '../../src/codec/compression.ts';
import type { SerializerName } from '../../src/codec/serializers.ts';
import { createCache, type Cache, type CacheOptions, type Serializer, type Store } from '../../src/index.ts';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { mustSucceed, type Contender, type ContenderSpec } from './types.ts';

/** Which cachette configuration a row measures. */
export interface CachetteVariant {
  id: string;
  label: string;
  /** A built-in store, or a factory given the benchmark server's URL (e.g. an upstash store on a bridge). */
  store: 'valkey' | 'memory' | ((redisUrl: string) => Store);
  serializer?: SerializerName | Serializer;
  compression?: CompressionOptions | boolean;
  /** Engine option: fold the store calls of one tick into getMany/setMany (default true). */
  batch?: boolean;
  /** Called with the cache once created, e.g. to listen to its events. */
  onCache?: (cache: Cache) => void;
  /** More engine options the row measures, e.g. an L1 tier. */
  options?: Pick<CacheOptions, 'l1' | 'locationCache'>;
}

/** cachette through its public API (`createCache`) over the valkey or the memory store. */
export function cachetteSpec(v: CachetteVariant): ContenderSpec {
  return {
    id: v.id,
    label: v.label,
    async open(url) {
      const store = typeof v.store === 'function' ? v.store(url) : v.store === 'valkey' ? valkeyStore(url) : memoryStore({ maxEntries: 100_000 });
      const cache = createCache({
        store,
        namespace: v.id,
        ...v.options,
        ...(v.serializer === undefined ? {} : { serializer: v.serializer }),
        ...(v.compression === undefined ? {} : { compression: v.compression }),
        ...(v.batch === undefined ? {} : { batch: v.batch }),
      });
      v.onCache?.(cache);
      const contender: Contender = {
        get: (key) => cache.get(key),
        set: async (key, value) => mustSucceed(await cache.set(key, value), 'cachette set'),
        getMany: (keys) => cache.getMany(keys),
        setMany: async (entries) => mustSucceed(await cache.setMany(entries.map(([key, value]) => ({ key, value }))), 'cachette setMany'),
        async incr(key) {
          const n = await cache.incr(key);
          if (n === undefined) throw new Error('cachette incr reported a store failure');
          return n;
        },
        delete: async (key) => void (await cache.delete(key)),
        async close() {
          await cache.close();
          await store.close();
        },
      };
      return contender;
    },
  };
}
