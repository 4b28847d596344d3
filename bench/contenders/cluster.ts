/**
 * The contenders of the cluster rows (bench/cluster/run.ts): cachette on the cluster store, with
 * and without folding a tick's calls, against raw iovalkey `Cluster` and node-redis's cluster
 * client. Each opens on a seed list `host:port,…` instead of a URL. The raw clients cannot MGET
 * or MSET keys of different slots (the server refuses: CROSSSLOT), so their getMany and setMany
 * are one GET or SET per key, in parallel, which is what a user of those clients writes.
 */
import { Cluster } from 'iovalkey';
import { createCluster } from 'redis';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { cachetteSpec } from './cachette.ts';
import { iovalkeyContender } from './iovalkey.ts';
import type { Contender, ContenderSpec, PhaseName } from './types.ts';

const seedsOf = (list: string) => list.split(',').map((seed) => ({ host: seed.slice(0, seed.lastIndexOf(':')), port: Number(seed.slice(seed.lastIndexOf(':') + 1)) }));

const PER_KEY: Partial<Record<PhaseName, string>> = {
  mget: 'one GET per key, in parallel (an MGET of keys in different slots is refused with CROSSSLOT)',
  mset: 'one SET per key, in parallel (an MSET of keys in different slots is refused with CROSSSLOT)',
};

/** `contender` with getMany and setMany as one call per key, all in flight at once. */
function perKey(contender: Omit<Contender, 'getMany' | 'setMany'>): Contender {
  return {
    ...contender,
    getMany: (keys) => Promise.all(keys.map((key) => contender.get(key))),
    setMany: async (entries) => void (await Promise.all(entries.map(([key, value]) => contender.set(key, value)))),
  };
}

/** Raw iovalkey `Cluster` (one connection per master), optionally with its per-node autopipelining. */
export function iovalkeyClusterSpec(autoPipelining: boolean): ContenderSpec {
  return {
    id: autoPipelining ? 'iovalkey-cluster-autopipeline' : 'iovalkey-cluster',
    label: autoPipelining ? 'iovalkey Cluster (raw, autopipelining)' : 'iovalkey Cluster (raw)',
    footnotes: PER_KEY,
    async open(seeds) {
      const client = new Cluster(seedsOf(seeds), { enableAutoPipelining: autoPipelining });
      await client.ping();
      return perKey(iovalkeyContender(client));
    },
  };
}

/** node-redis 5's cluster client (`createCluster`). */
export const nodeRedisClusterSpec: ContenderSpec = {
  id: 'node-redis-cluster',
  label: 'node-redis 5 cluster',
  footnotes: PER_KEY,
  async open(seeds) {
    const client = createCluster({ rootNodes: seedsOf(seeds).map(({ host, port }) => ({ url: `redis://${host}:${port}` })) });
    await client.connect();
    const parse = (t: string | null | object) => (typeof t === 'string' ? JSON.parse(t) : undefined);
    return perKey({
      get: async (key) => parse(await client.get(key)),
      set: async (key, value) => void (await client.set(key, JSON.stringify(value))),
      incr: (key) => client.incr(key),
      delete: async (key) => void (await client.del(key)),
      close: async () => void (await client.close()),
    });
  },
};

/**
 * cachette on the cluster store; `batch: false` sends each call alone, to show what folding a tick
 * buys. The store is connected before the phases start, as the raw clients are (a cold client's
 * first calls would otherwise race the cache's timeout on a loaded machine).
 */
export function cachetteClusterSpec(batch: boolean): ContenderSpec {
  const id = batch ? 'cachette-cluster' : 'cachette-cluster-unbatched';
  const label = batch ? 'cachette, cluster store' : 'cachette, cluster store, batch: false';
  return {
    id,
    label,
    async open(seeds) {
      const store = valkeyStore<Cluster>({ cluster: seeds.split(',') });
      await store.client.ping();
      return cachetteSpec({ id, label, store: () => store, batch }).open(seeds);
    },
  };
}

/** The cluster rows, in table order. */
export const clusterContenders: readonly ContenderSpec[] = [cachetteClusterSpec(true), cachetteClusterSpec(false), iovalkeyClusterSpec(false), iovalkeyClusterSpec(true), nodeRedisClusterSpec];
