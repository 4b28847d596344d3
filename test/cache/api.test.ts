import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { sleep } from '../support/suite-api.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';
import { capturedLogger } from '../support/captured-logger.ts';

describe.each(engineTargets)('cache API on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    // The suite makes the store fail on purpose (incr on a non-integer): what the cache says about it is kept, not printed.
    cache = createCache({ store, namespace: uniqueNamespace('api'), ttl: '1m', clock, logger: capturedLogger() });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('round-trips rich values (CBOR where JSON would change them) and plain ones (JSON)', async () => {
    const value = { n: 1, s: 'é', d: new Date(1_700_000_000_000), m: new Map([[1, 'a']]), set: new Set(['x']), big: 2n ** 70n, bytes: new Uint8Array([0, 255]), nested: [{ a: null }] };
    expect(await cache.set('rich', value)).toBe(true);
    expect(await cache.get('rich')).toEqual(value);
  });

  it('get, has and delete', async () => {
    expect(await cache.get('nothing')).toBeUndefined();
    expect(await cache.has('nothing')).toBe(false);
    await cache.set('k', 'v');
    expect(await cache.has('k')).toBe(true);
    expect(await cache.delete('k')).toBe(1);
    expect(await cache.delete(['k', 'also-absent'])).toBe(0);
    expect(await cache.has('k')).toBe(false);
  });

  it('expires values after their ttl', async () => {
    await cache.set('short', 1, { ttl: 30_000 });
    expect(await cache.get('short')).toBe(1);
    clock.advance(30_001);
    expect(await cache.get('short')).toBeUndefined();
  });

  it('getMany and setMany, with holes', async () => {
    expect(
      await cache.setMany<unknown>([
        { key: 'a', value: 1, ttl: '1h' },
        { key: 'b', value: { two: 2 }, ttl: 30_000 },
        { key: 'c', value: 'three' },
      ]),
    ).toBe(true);
    expect(await cache.getMany(['a', 'x', 'b', 'c'])).toEqual([1, undefined, { two: 2 }, 'three']);
    // A miss is an undefined slot, not a hole: toStrictEqual and `in` tell the two apart.
    const got = await cache.getMany(['x', 'a', 'y']);
    expect(got).toStrictEqual([undefined, 1, undefined]);
    expect(0 in got && 2 in got).toBe(true);
    clock.advance(30_001);
    expect(await cache.getMany(['a', 'b'])).toEqual([1, undefined]);
    expect(await cache.getMany([])).toEqual([]);
  });

  it('incr counts, with a ttl only on creation', async () => {
    expect(await cache.incr('hits')).toBe(1);
    expect(await cache.incr('hits', 9)).toBe(10);
    expect(await cache.incr('hits', -3)).toBe(7);
    expect(await cache.incr('temp', 1, { ttl: 30 })).toBe(1);
    await sleep(60);
    expect(await cache.incr('temp')).toBe(1);
    await expect(cache.incr('hits', 1.5)).rejects.toThrow(TypeError);
  });

  it('a store-side failure (incr on a non-integer) is undefined plus an error event, never a throw', async () => {
    await cache.set('not-a-counter', { a: 1 });
    const errors: string[] = [];
    const onError = (e: Event) => errors.push((e as CustomEvent<{ operation: string }>).detail.operation);
    cache.events.addEventListener('error', onError);
    expect(await cache.incr('not-a-counter')).toBeUndefined();
    cache.events.removeEventListener('error', onError);
    expect(errors).toEqual(['incr']);
    expect(await cache.get('not-a-counter')).toEqual({ a: 1 });
  });

  it('folds concurrent gets of one tick into one read and counts hits and misses', async () => {
    await cache.setMany(Array.from({ length: 20 }, (_, i) => ({ key: `fold:${i}`, value: i })));
    const before = cache.stats();
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => cache.get(`fold:${i}`)));
    expect(got).toEqual(Array.from({ length: 40 }, (_, i) => (i < 20 ? i : undefined)));
    const after = cache.stats();
    expect(after.hits - before.hits).toBe(20);
    expect(after.misses - before.misses).toBe(20);
    expect(after.bytesRead).toBeGreaterThan(before.bytesRead);
  });

  it('keeps the order calls were issued in within one tick', async () => {
    const [, deleted, afterDelete] = await Promise.all([cache.set('order', 'v1'), cache.delete('order'), cache.get('order')]);
    expect(deleted).toBe(1);
    expect(afterDelete).toBeUndefined();
    const [, , read] = await Promise.all([cache.set('order', 'v2'), cache.set('order', 'v3'), cache.get('order')]);
    expect(read).toBe('v3');
    const [, counted] = await Promise.all([cache.delete('order-n'), cache.incr('order-n', 5), cache.set('order-x', 1)]);
    expect(counted).toBe(5);
  });

  it('stores every one of many concurrent writes', async () => {
    const writes = await Promise.all(Array.from({ length: 50 }, (_, i) => cache.set(`w:${i}`, { i }, { ttl: i % 2 ? 60_000 : undefined })));
    expect(writes.every(Boolean)).toBe(true);
    expect(await cache.getMany(Array.from({ length: 50 }, (_, i) => `w:${i}`))).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
  });

  it('dispatches hit and miss events on its EventTarget', async () => {
    const seen: string[] = [];
    const listener = (e: Event) => seen.push(`${e.type}:${(e as CustomEvent<{ key: string }>).detail.key}`);
    cache.events.addEventListener('hit', listener);
    cache.events.addEventListener('miss', listener);
    await cache.set('ev', 1);
    await cache.get('ev');
    await cache.get('ev-missing');
    cache.events.removeEventListener('hit', listener);
    cache.events.removeEventListener('miss', listener);
    await cache.get('ev');
    expect(seen).toEqual(['hit:ev', 'miss:ev-missing']);
  });

  it('keeps namespaces apart and clears only its own', async () => {
    const other = createCache({ store, namespace: uniqueNamespace('other') });
    await other.set('shared-name', 'other');
    await cache.set('shared-name', 'mine');
    expect(await other.get('shared-name')).toBe('other');
    await other.clear();
    expect(await other.get('shared-name')).toBeUndefined();
    expect(await cache.get('shared-name')).toBe('mine');
  });
});
