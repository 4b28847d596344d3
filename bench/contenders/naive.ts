import Valkey from 'iovalkey';
import { iovalkeyContender } from './iovalkey.ts';
import type { Contender, ContenderSpec } from './types.ts';

/**
 * The worst case people still ship: a new connection for every call (connect, one command,
 * QUIT). It bounds the table from below and shows what connection reuse buys.
 */
export const naiveSpec: ContenderSpec = {
  id: 'naive',
  label: 'naive (client per call)',
  async open(url) {
    const once = async <T>(use: (c: Contender) => Promise<T>): Promise<T> => {
      const client = new Valkey(url, { maxRetriesPerRequest: 1 });
      try {
        return await use(iovalkeyContender(client));
      } finally {
        await client.quit().catch(() => client.disconnect());
      }
    };
    return {
      get: (key) => once((c) => c.get(key)),
      set: (key, value) => once((c) => c.set(key, value)),
      getMany: (keys) => once((c) => c.getMany(keys)),
      setMany: (entries) => once((c) => c.setMany(entries)),
      incr: (key) => once((c) => c.incr(key)),
      delete: (key) => once((c) => c.delete(key)),
      close: async () => undefined,
    };
  },
};
