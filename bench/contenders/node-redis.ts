import { createClient } from 'redis';
import type { ContenderSpec } from './types.ts';

/** node-redis v5 (the `redis` package), one client; it pipelines commands of one tick by itself. */
export const nodeRedisSpec: ContenderSpec = {
  id: 'node-redis',
  label: 'node-redis 5',
  async open(url) {
    const client = createClient({ url });
    await client.connect();
    const parse = (t: string | null | object) => (typeof t === 'string' ? JSON.parse(t) : undefined);
    return {
      get: async (key) => parse(await client.get(key)),
      set: async (key, value) => void (await client.set(key, JSON.stringify(value))),
      getMany: async (keys) => (await client.mGet([...keys])).map(parse),
      setMany: async (entries) => void (await client.mSet(entries.map(([k, v]) => [k, JSON.stringify(v)] as [string, string]))),
      incr: (key) => client.incr(key),
      delete: async (key) => void (await client.del(key)),
      close: async () => void (await client.close()),
    };
  },
};
