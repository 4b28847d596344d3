import { createCache } from '../../src/index.ts';
import { upstashStore, type UpstashConnectionOptions } from '../../adapters/upstash/index.ts';
import { mustSucceed, type ContenderSpec } from '../contenders/types.ts';

/**
 * cachette (defaults: CBOR, read batching) over the upstash store, mapped onto the shared
 * phase interface. `open(url)` ignores the Redis URL: the store talks to the bridge.
 */
export function cachetteUpstashSpec(id: string, label: string, endpoint: UpstashConnectionOptions): ContenderSpec {
  return {
    id,
    label,
    async open() {
      const store = upstashStore(endpoint);
      const cache = createCache({ store, namespace: id });
      return {
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
    },
  };
}
