import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import { mustSucceed, type ContenderSpec } from './types.ts';

/**
 * bentocache with its ioredis driver, either as the only layer (L2) or tiered behind its
 * in-process memory layer (L1 + L2). bentocache has no getMany, setMany or increment, so those
 * phases use the closest public calls (footnoted in the report).
 */
export function bentocacheSpec(tiered: boolean): ContenderSpec {
  return {
    id: tiered ? 'bentocache-tiered' : 'bentocache-l2',
    label: tiered ? 'bentocache (memory L1 + redis L2)' : 'bentocache (redis L2)',
    footnotes: {
      mget: '10 concurrent `get` calls (bentocache has no getMany)',
      mset: '10 concurrent `set` calls (bentocache has no setMany)',
      incr: '`get` then `set` of the number, not atomic (bentocache has no increment)',
    },
    async open(url) {
      const connection = new Redis(url);
      const store = tiered
        ? bentostore()
            .useL1Layer(memoryDriver({ maxItems: 100_000 }))
            .useL2Layer(redisDriver({ connection }))
        : bentostore().useL2Layer(redisDriver({ connection }));
      const bento = new BentoCache({ default: 'store', stores: { store } });
      const get = (key: string) => bento.get({ key });
      const set = async (key: string, value: unknown) => mustSucceed(await bento.set({ key, value }), 'bentocache set');
      return {
        get,
        set,
        getMany: (keys) => Promise.all(keys.map(get)),
        setMany: async (entries) => void (await Promise.all(entries.map(([k, v]) => set(k, v)))),
        async incr(key) {
          const next = ((await bento.get<number>({ key })) ?? 0) + 1;
          await set(key, next);
          return next;
        },
        delete: async (key) => void (await bento.delete({ key })),
        async close() {
          await bento.disconnect();
          // The connection was passed in, so it is ours to close.
          if (connection.status !== 'end') await connection.quit().catch(() => connection.disconnect());
        },
      };
    },
  };
}
