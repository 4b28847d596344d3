import { createStorage, type StorageValue } from 'unstorage';
import redisDriver from 'unstorage/drivers/redis';
import type { ContenderSpec } from './types.ts';

/**
 * unstorage with its redis driver (ioredis). getItems is one MGET; the driver has no bulk
 * write, so setItems falls back to one SET per item inside unstorage; no increment exists.
 */
export const unstorageSpec: ContenderSpec = {
  id: 'unstorage',
  label: 'unstorage (redis driver)',
  footnotes: {
    mset: '`setItems`, which this driver runs as one SET per item',
    incr: '`getItem` then `setItem` of the number, not atomic (unstorage has no increment)',
  },
  async open(url) {
    const storage = createStorage({ driver: redisDriver({ url, base: 'us', preConnect: true }) });
    return {
      get: (key) => storage.getItem(key),
      set: (key, value) => storage.setItem(key, value as StorageValue),
      getMany: async (keys) => (await storage.getItems([...keys])).map((item) => item.value),
      setMany: (entries) => storage.setItems(entries.map(([key, value]) => ({ key, value: value as StorageValue }))),
      async incr(key) {
        const next = Number((await storage.getItem<number>(key)) ?? 0) + 1;
        await storage.setItem(key, next);
        return next;
      },
      delete: (key) => storage.removeItem(key),
      close: () => storage.dispose(),
    };
  },
};
