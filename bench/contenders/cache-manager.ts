import KeyvRedis from '@keyv/redis';
import { createCache } from 'cache-manager';
import { Keyv } from 'keyv';
import type { ContenderSpec } from './types.ts';

/**
 * cache-manager 7 over a Keyv store backed by @keyv/redis (which uses node-redis). Its mget and
 * mset map onto Keyv's getMany / setMany; it has no increment, so that phase is a read then a write.
 */
export const cacheManagerSpec: ContenderSpec = {
  id: 'cache-manager',
  label: 'cache-manager 7 (Keyv + @keyv/redis)',
  footnotes: {
    incr: '`get` then `set` of the number, not atomic (cache-manager has no increment)',
  },
  async open(url) {
    const keyv = new Keyv({ store: new KeyvRedis(url), namespace: 'cm' });
    const cache = createCache({ stores: [keyv] });
    return {
      get: (key) => cache.get(key),
      set: async (key, value) => void (await cache.set(key, value)),
      getMany: (keys) => cache.mget([...keys]),
      setMany: async (entries) => void (await cache.mset(entries.map(([key, value]) => ({ key, value })))),
      async incr(key) {
        const next = ((await cache.get<number>(key)) ?? 0) + 1;
        await cache.set(key, next);
        return next;
      },
      delete: async (key) => void (await cache.del(key)),
      close: async () => void (await cache.disconnect()),
    };
  },
};
