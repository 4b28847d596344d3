import type { ContenderSpec } from '../../contenders/types.ts';

/** The part of Bun's RedisClient the raw contender calls (strings in, strings out). */
interface BunRedisTextClient {
  connect(): Promise<void>;
  close(): void;
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<string>;
  mget(...keys: string[]): Promise<Array<string | null>>;
  mset(...keysAndValues: string[]): Promise<string>;
  incr(key: string): Promise<number>;
  del(...keys: string[]): Promise<number>;
}

const parse = (text: string | null) => (text === null ? undefined : JSON.parse(text));

/**
 * Bun's built-in RedisClient storing JSON text, one connection: the floor on Bun, as raw
 * iovalkey is on Node. Loads only under Bun (the constructor is `Bun.RedisClient`).
 */
export const bunRedisRawSpec: ContenderSpec = {
  id: 'bun-redis',
  label: 'Bun RedisClient (raw, JSON)',
  async open(url) {
    const Client = (globalThis as { Bun?: { RedisClient?: new (url: string) => BunRedisTextClient } }).Bun?.RedisClient;
    if (!Client) throw new TypeError('Bun.RedisClient exists only under Bun');
    const client = new Client(url);
    await client.connect();
    return {
      get: async (key) => parse(await client.get(key)),
      set: async (key, value) => void (await client.set(key, JSON.stringify(value))),
      getMany: async (keys) => (await client.mget(...keys)).map(parse),
      setMany: async (entries) => void (await client.mset(...entries.flatMap(([k, v]) => [k, JSON.stringify(v)]))),
      incr: (key) => client.incr(key),
      delete: async (key) => void (await client.del(key)),
      close: async () => client.close(),
    };
  },
};
