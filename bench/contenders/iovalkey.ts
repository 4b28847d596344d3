import Valkey, { type Cluster } from 'iovalkey';
import type { Contender, ContenderSpec } from './types.ts';

/** Wraps an open iovalkey client (one server or a Cluster) as a contender storing JSON text, what a hand-rolled cache does. */
export function iovalkeyContender(client: Valkey | Cluster): Contender {
  return {
    get: async (key) => {
      const text = await client.get(key);
      return text === null ? undefined : JSON.parse(text);
    },
    set: async (key, value) => void (await client.set(key, JSON.stringify(value))),
    getMany: async (keys) => (await client.mget(...keys)).map((t) => (t === null ? undefined : JSON.parse(t))),
    setMany: async (entries) => void (await client.mset(entries.flatMap(([k, v]) => [k, JSON.stringify(v)]))),
    incr: (key) => client.incr(key),
    delete: async (key) => void (await client.del(key)),
    close: async () => void (await client.quit()),
  };
}

/** Raw iovalkey, one shared connection: the floor any cache layer on it is measured against. */
export function iovalkeySpec(autoPipelining: boolean): ContenderSpec {
  return {
    id: autoPipelining ? 'iovalkey-autopipeline' : 'iovalkey',
    label: autoPipelining ? 'iovalkey (raw, autopipelining)' : 'iovalkey (raw)',
    async open(url) {
      const client = new Valkey(url, { enableAutoPipelining: autoPipelining });
      await client.ping();
      return iovalkeyContender(client);
    },
  };
}
