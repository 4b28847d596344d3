import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { postgresStore } from '../../adapters/postgres/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, MissingCapabilityError, type Cache, type Store } from '../../src/index.ts';
import { postgresInstalled, startPostgres, type Postgres } from '../adapters/postgres-server.ts';
import { removeDir, tempDir } from '../adapters/sqlite-temp.ts';
import { clusterNodes, redisUrl, requireCluster, requireRedis } from '../support/redis-env.ts';
import { eventually, untilFromMemory } from '../support/eventually.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from './targets.ts';

/** Two stores on one shared backend, as two processes would each open: their own connections, nothing shared in memory. */
interface Pair {
  name: string;
  /** Whether a write made on the store without cachette reaches the copies (docs/l1.md, "Writes made without cachette"). */
  seesForeignWrites: boolean;
  /**
   * Whether a process applies its own invalidation when the bus delivers it back (the cluster:
   * its publish does not share the store's ordered connection; src/store/bus/pubsub-bus.ts).
   */
  appliesOwnEcho: boolean;
  open(): { stores: [Store, Store]; cleanup(): void };
}

/** The PostgreSQL cluster of this file (where it is installed), started before any pair is opened. */
let postgres: Postgres | undefined;
beforeAll(async () => {
  if (postgresInstalled) postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const pairs: Pair[] = [
  {
    name: 'sqlite',
    seesForeignWrites: true,
    appliesOwnEcho: false,
    open: () => {
      const dir = tempDir('coherent');
      const path = join(dir, 'cache.db');
      return { stores: [sqliteStore(path), sqliteStore(path)], cleanup: () => removeDir(dir) };
    },
  },
  ...(postgresInstalled
    ? [
        {
          name: 'postgres',
          seesForeignWrites: false,
          // Its publish goes on the pool, which keeps no order with the store's other calls (adapters/postgres/bus.ts).
          appliesOwnEcho: true,
          open: () => ({ stores: [postgresStore(postgres!.url), postgresStore(postgres!.url)] as [Store, Store], cleanup: () => {} }),
        },
      ]
    : []),
  ...(requireRedis()
    ? [{ name: 'valkey', seesForeignWrites: false, appliesOwnEcho: false, open: () => ({ stores: [valkeyStore(redisUrl!), valkeyStore(redisUrl!)] as [Store, Store], cleanup: () => {} }) }]
    : []),
  ...(requireCluster()
    ? [
        {
          name: 'the cluster store',
          seesForeignWrites: false,
          appliesOwnEcho: true,
          // The same nodes in another order: both processes must still agree on the bus node.
          open: () => ({ stores: [valkeyStore({ cluster: clusterNodes!.split(',') }), valkeyStore({ cluster: clusterNodes!.split(',').reverse() })] as [Store, Store], cleanup: () => {} }),
        },
      ]
    : []),
];

describe('coherent l1 option checks', () => {
  it('refuses consistency "coherent" on a store without an invalidation bus, and confirm without it', () => {
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'coherent' } })).toThrow(MissingCapabilityError);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'coherent' } })).toThrow(/"memory" store has no "coherence" capability.*use consistency: "strict"/);
    expect(() => createCache({ store: memoryStore(), l1: { confirm: 'barrier' } })).toThrow(/confirm applies to consistency: "coherent" only/);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'coherent', confirm: 'soon' as 'lease' } })).toThrow(/"lease" or "barrier"/);
  });
});

const cases = pairs.flatMap((pair) => (['lease', 'barrier'] as const).map((confirm) => ({ ...pair, confirm })));

describe.each(cases)('coherent L1 ($confirm) on $name, two processes', ({ open, confirm, seesForeignWrites }) => {
  let reader: Cache;
  let writer: Cache;
  /** The writer's store, written to directly: another client of the server, not through cachette. */
  let foreign: Store;
  let namespace: string;
  let cleanup: () => void;
  beforeAll(() => {
    namespace = uniqueNamespace(`l1c-${confirm}`);
    const opened = open();
    foreign = opened.stores[1];
    cleanup = opened.cleanup;
    reader = createCache({ store: opened.stores[0], namespace, l1: { consistency: 'coherent', confirm } });
    writer = createCache({ store: opened.stores[1], namespace, l1: { consistency: 'coherent', confirm } });
  });
  afterAll(async () => {
    await writer.clear();
    await reader.close();
    await writer.close();
    cleanup();
  });

  it('serves from memory, and a read after another process’s set returned gets the new value', async () => {
    await writer.set('k', 'v1');
    expect(await untilFromMemory(reader, 'k')).toBe('v1');
    for (let i = 2; i <= 20; i++) {
      await writer.set('k', `v${i}`);
      expect(await reader.get('k')).toBe(`v${i}`);
    }
    await writer.delete('k');
    expect(await reader.get('k')).toBeUndefined();
  });

  it('tags: a read after commit() returned never gets the value from before the write', async () => {
    let version = 0;
    const load = () => reader.getOrSet('row', () => version, { tags: ['rows'] });
    expect(await load()).toBe(0);
    await untilFromMemory(reader, 'row');
    for (let i = 1; i <= 10; i++) {
      const fence = await writer.beginWrite(['rows']);
      version = i;
      await fence.commit();
      expect(await load()).toBe(i);
      await writer.invalidateTags(['rows']);
      expect(await load()).toBe(i);
    }
  });

  it('a value read from the source during a fenced write is never served once the source committed (write fences on every store with a bus)', async () => {
    let source = 'before';
    const load = () => reader.getOrSet('fenced-row', () => source, { tags: ['fenced', 'fenced-other'] });
    const fence = await writer.beginWrite(['fenced', 'fenced-other']);
    // The source has not committed yet: the old value is what a reader finds there, and must not be kept.
    expect(await load()).toBe('before');
    source = 'after';
    // The source committed; the cache's commit() has not run yet.
    expect(await load()).toBe('after');
    await fence.commit();
    expect(await load()).toBe('after');
    await untilFromMemory(reader, 'fenced-row');
    expect(await load()).toBe('after');
  });

  it(`a write made without cachette (another client's DEL) ${seesForeignWrites ? 'is seen at once' : 'is not seen until a write through a cache'}, as docs/l1.md says`, async () => {
    await writer.set('foreign', 'kept');
    await untilFromMemory(reader, 'foreign');
    await foreign.delete([`cachette:${namespace}:foreign`]);
    expect(await foreign.get(`cachette:${namespace}:foreign`)).toBeUndefined();
    if (seesForeignWrites) expect(await reader.get('foreign')).toBeUndefined();
    else {
      // The server holds nothing any more; the copy lives on: no invalidation was published.
      expect(await reader.get('foreign')).toBe('kept');
      await writer.delete('foreign');
      expect(await reader.get('foreign')).toBeUndefined();
    }
  });

  it('expire and clear reach the other process before they return', async () => {
    await writer.set('e', 'fresh', { ttl: '1m', grace: '1m' });
    await untilFromMemory(reader, 'e');
    await writer.expire('e');
    expect(await reader.get('e')).toBeUndefined();
    await writer.set('c', 'there');
    await untilFromMemory(reader, 'c');
    await writer.clear();
    expect(await reader.get('c')).toBeUndefined();
  });
});

describe.each(pairs)('coherent L1 on $name: the writes of one tick', ({ open }) => {
  it('reach the store in as many calls as without an L1 (one invalidation behind them all), and the other process before they return', async () => {
    const namespace = uniqueNamespace('l1c-tick');
    const opened = open();
    const counted = new CountingStore(opened.stores[1]);
    const reader = createCache({ store: opened.stores[0], namespace, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: counted, namespace, l1: { consistency: 'coherent' } });
    const plain = createCache({ store: counted, namespace: `${namespace}-plain` });
    const keys = Array.from({ length: 10 }, (_, i) => `tick-${i}`);
    /** The calls that reached the store for one tick of ten sets with reads between them, and what the sets answered. */
    const tick = async (cache: Cache, value: string) => {
      counted.reset();
      const results = await Promise.all(keys.flatMap((key) => [cache.set(key, value), cache.get(key)]));
      expect(results.filter((result) => result === true)).toHaveLength(keys.length);
      return counted.calls.filter((call) => call.method !== 'get' && call.method !== 'getMany').length;
    };
    try {
      await Promise.all(keys.map((key) => writer.set(key, 'v1')));
      for (const key of keys) expect(await untilFromMemory(reader, key)).toBe('v1');
      const withoutL1 = await tick(plain, 'v2');
      expect(await tick(writer, 'v2')).toBe(withoutL1);
      for (const key of keys) expect(await reader.get(key)).toBe('v2');
    } finally {
      await writer.clear();
      await plain.clear();
      await reader.close();
      await writer.close();
      await plain.close();
      opened.cleanup();
    }
  });
});

// SQLite's bus is the database's change counter: any commit of another process drops every copy, by design.
describe.each(pairs.filter((pair) => !pair.seesForeignWrites))('coherent L1 on $name: many writes in one tick', ({ open }) => {
  it('are invalidated key by key, never as everything: the other process keeps what they did not touch', async () => {
    const namespace = uniqueNamespace('l1c-many');
    const opened = open();
    const reader = createCache({ store: opened.stores[0], namespace, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: opened.stores[1], namespace, l1: { consistency: 'coherent' } });
    try {
      await writer.set('untouched', 'kept');
      expect(await untilFromMemory(reader, 'untouched')).toBe('kept');
      // More keys than one invalidation message may name (src/store/bus/format.ts), in one tick.
      const many = Array.from({ length: 300 }, (_, i) => `many-${i}`);
      expect(await Promise.all(many.map((key) => writer.set(key, 'x')))).toEqual(many.map(() => true));
      const before = reader.stats().bytesRead;
      expect(await reader.get('untouched')).toBe('kept');
      expect(reader.stats().bytesRead).toBe(before);
    } finally {
      await writer.clear();
      await reader.close();
      await writer.close();
      opened.cleanup();
    }
  });
});

describe.each(pairs)('coherent L1 on $name: what a process writes itself', ({ open, appliesOwnEcho }) => {
  let one: Cache;
  let other: Cache;
  /** No L1, over the first process's store: what the store holds. */
  let plain: Cache;
  let cleanup: () => void;
  beforeAll(() => {
    const namespace = uniqueNamespace('l1c-own');
    const opened = open();
    cleanup = opened.cleanup;
    one = createCache({ store: opened.stores[0], namespace, l1: { consistency: 'coherent' } });
    other = createCache({ store: opened.stores[1], namespace, l1: { consistency: 'coherent' } });
    plain = createCache({ store: opened.stores[0], namespace });
  });
  afterAll(async () => {
    await one.clear();
    await one.close();
    await other.close();
    await plain.close();
    cleanup();
  });
  /** Whether a get of `key` by `cache` is answered from memory, and what it answers. */
  const read = async (cache: Cache, key: string) => {
    const before = cache.stats().bytesRead;
    const value = await cache.get(key);
    return { value, fromMemory: cache.stats().bytesRead === before };
  };

  it(`a read in the same tick as the process's own set ${appliesOwnEcho ? 'is dropped by the own echo' : 'is kept: the own echo is not applied'}`, async () => {
    await one.set('echo', 'v1');
    expect(await untilFromMemory(one, 'echo')).toBe('v1');
    for (let i = 2; i <= 5; i++) {
      // The get goes behind the set on the store's connection: it reads the new value, and the
      // set's invalidation comes back from the bus while it is in flight or just after.
      const [stored, value] = await Promise.all([one.set('echo', `v${i}`), one.get('echo')]);
      expect([stored, value]).toEqual([true, `v${i}`]);
      await other.get('echo');
      expect(await read(one, 'echo')).toEqual({ value: `v${i}`, fromMemory: !appliesOwnEcho });
    }
  });

  it(`what it just set ${appliesOwnEcho ? 'is read back from the store' : 'is its copy (write-through): read back from memory'}`, async () => {
    await one.set('through', 'v1');
    expect(await untilFromMemory(one, 'through')).toBe('v1');
    expect(await untilFromMemory(other, 'through')).toBe('v1');
    for (let i = 2; i <= 5; i++) {
      expect(await one.set('through', `v${i}`)).toBe(true);
      expect(await read(one, 'through')).toEqual({ value: `v${i}`, fromMemory: !appliesOwnEcho });
      expect(await other.get('through')).toBe(`v${i}`);
    }
    // A tagged entry depends on generations read before its write: never kept so.
    await one.set('through-tagged', 't1', { tags: ['own'] });
    expect(await read(one, 'through-tagged')).toEqual({ value: 't1', fromMemory: false });
  });

  it('two processes setting one key at once: once both returned, each serves what the store holds', async () => {
    await one.set('race', 'start');
    expect(await untilFromMemory(one, 'race')).toBe('start');
    expect(await untilFromMemory(other, 'race')).toBe('start');
    for (let i = 0; i < 40; i++) {
      expect(await Promise.all([one.set('race', `one-${i}`), other.set('race', `other-${i}`)])).toEqual([true, true]);
      const held = await plain.get('race');
      expect([await one.get('race'), await other.get('race')]).toEqual([held, held]);
    }
  });
});
