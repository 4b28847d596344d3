// `cache.lookup`: the read the HTTP cache keeps its own freshness with (issue 29, item 4; issue
// 32, item 4). It returns a value in its grace too, with how long it has been stale, however it
// got there: its ttl ran out, `expire` cut it, or a soft tag invalidation moved it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];

describe.each(targets)('lookup on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    cache = createCache({ store, namespace: uniqueNamespace('lookup'), clock, closeStore: false });
  });
  afterAll(async () => {
    await cache.close();
    await store.close();
  });

  it('returns a fresh value, then the stale one through its grace, then nothing', async () => {
    await cache.set('a', { v: 1 }, { ttl: 60_000, grace: 5000 });
    expect(await cache.lookup('a')).toEqual({ value: { v: 1 }, state: 'fresh', staleMs: 0 });
    clock.advance(60_000 + 1500);
    expect(await cache.lookup('a')).toEqual({ value: { v: 1 }, state: 'stale', staleMs: 1500 });
    expect(await cache.get('a')).toBeUndefined();
    clock.advance(3500);
    expect(await cache.lookup('a')).toBeUndefined();
    expect(await cache.lookup('none')).toBeUndefined();
  });

  it('sees an entry expire made stale, from the moment it did', async () => {
    await cache.set('b', 'kept', { ttl: 60_000, grace: 10_000 });
    clock.advance(1000);
    expect(await cache.expire('b')).toBe(1);
    clock.advance(250);
    expect(await cache.lookup('b')).toEqual({ value: 'kept', state: 'stale', staleMs: 250 });
  });

  it('sees an entry a soft tag invalidation made stale, from the move; a hard one leaves nothing', async () => {
    await cache.set('c', 'tagged', { ttl: 60_000, grace: 10_000, tags: ['soft-t'] });
    await cache.set('d', 'gone', { ttl: 60_000, grace: 10_000, tags: ['hard-t'] });
    clock.advance(1000);
    await cache.invalidateTags(['soft-t'], { soft: true });
    await cache.invalidateTags(['hard-t']);
    clock.advance(400);
    expect(await cache.lookup('c')).toEqual({ value: 'tagged', state: 'stale', staleMs: 400 });
    expect(await cache.lookup('d')).toBeUndefined();
    // Its grace is counted from the move.
    clock.advance(9600);
    expect(await cache.lookup('c')).toBeUndefined();
  });

  it('counts as get counts: a hit only when fresh', async () => {
    await cache.set('e', 1, { ttl: 1000, grace: 1000 });
    const before = cache.stats();
    await cache.lookup('e');
    clock.advance(1500);
    await cache.lookup('e');
    const after = cache.stats();
    expect([after.hits - before.hits, after.misses - before.misses]).toEqual([1, 1]);
  });

  it('refuses a key that is not a non-empty string', async () => {
    await expect(cache.lookup('')).rejects.toThrow(TypeError);
  });
});
