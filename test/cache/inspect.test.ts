import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];

describe.each(targets)('inspect on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  let namespace: string;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    namespace = uniqueNamespace('inspect');
    cache = createCache({ store, namespace, clock, closeStore: false });
  });
  afterAll(async () => {
    await cache.close();
    await store.close();
  });

  it('says fresh, stale or missing, with the age, the ttl left and the tags', async () => {
    await cache.set('a', { v: 1 }, { ttl: 60_000, grace: 5000, tags: ['t1', 't2'] });
    clock.advance(100);
    expect(await cache.inspect('a')).toEqual({ state: 'fresh', age: 100, ttl: 59_900, tags: ['t1', 't2'], negative: false });
    clock.advance(60_000);
    expect(await cache.inspect('a')).toEqual({ state: 'stale', age: 60_100, ttl: 0, tags: ['t1', 't2'], negative: false });
    clock.advance(5000);
    expect(await cache.inspect('a')).toEqual({ state: 'missing', age: undefined, ttl: undefined, tags: [], negative: false });
    expect(await cache.inspect('none')).toEqual({ state: 'missing', age: undefined, ttl: undefined, tags: [], negative: false });
    await cache.set('endless', 1);
    expect(await cache.inspect('endless')).toEqual({ state: 'fresh', age: 0, ttl: Infinity, tags: [], negative: false });
  });

  it('checks tags as a read does: an entry outdated by a tag is missing', async () => {
    await cache.set('tagged', 1, { tags: ['moving'] });
    expect((await cache.inspect('tagged')).state).toBe('fresh');
    await cache.invalidateTags(['moving']);
    expect((await cache.inspect('tagged')).state).toBe('missing');
  });

  it('changes nothing: no hit, miss, outdated or corrupt counted, no event', async () => {
    await cache.set('quiet', 1, { tags: ['quiet'] });
    await cache.invalidateTags(['quiet']);
    await store.set(`cachette:${namespace}:garbage`, new Uint8Array(40).fill(0xca));
    const seen: string[] = [];
    for (const type of ['hit', 'miss', 'stale', 'outdated', 'corrupt', 'refresh', 'error'] as const) cache.events.addEventListener(type, () => seen.push(type));
    const before = cache.stats();
    await cache.inspect('quiet');
    await cache.inspect('nothing');
    expect((await cache.inspect('garbage')).state).toBe('missing');
    expect(seen).toEqual([]);
    expect(cache.stats()).toEqual(before);
  });

  it('refuses a bad key', async () => {
    await expect(cache.inspect('')).rejects.toThrow(TypeError);
  });
});

it('inspect makes no L1 copy: the next get still reads the entry from the store', async () => {
  const counting = new CountingStore(memoryStore(), { local: false });
  const cache = createCache({ store: counting, namespace: uniqueNamespace('inspect-l1'), l1: { consistency: 'strict' } });
  try {
    await cache.set('k', 'v');
    expect((await cache.inspect('k')).state).toBe('fresh');
    counting.reset();
    expect(await cache.get('k')).toBe('v'); // no copy to validate: a plain read of the entry
    expect(counting.calls.map((call) => call.method)).toEqual(['get']);
    counting.reset();
    expect(await cache.get('k')).toBe('v'); // that read made a copy: it is validated instead
    expect(counting.calls.map((call) => call.method)).toEqual(['readWithGenerations']);
  } finally {
    await cache.close();
  }
});
