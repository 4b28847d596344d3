import type { Contender } from '../../contenders/types.ts';

/** The part of a Workers KV binding the raw contender calls. */
export interface KvTextNamespace {
  get(key: string, type: 'json'): Promise<unknown>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A Workers KV binding used directly, storing JSON text: what a Worker does without a cache
 * library. KV has no batch read, no batch write and no increment, so getMany is one get per
 * key in parallel and incr a read then a write (not atomic, as for every KV user).
 */
export function kvRawContender(kv: KvTextNamespace): Contender {
  const get = async (key: string) => (await kv.get(key, 'json')) ?? undefined;
  const set = (key: string, value: unknown) => kv.put(key, JSON.stringify(value));
  return {
    get,
    set,
    getMany: (keys) => Promise.all(keys.map(get)),
    setMany: async (entries) => void (await Promise.all(entries.map(([k, v]) => set(k, v)))),
    async incr(key) {
      const next = Number((await get(key)) ?? 0) + 1;
      await set(key, next);
      return next;
    },
    delete: (key) => kv.delete(key),
    close: async () => undefined,
  };
}
