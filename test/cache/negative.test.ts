import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];

describe.each(targets)('negativeTtl on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    cache = createCache({ store, namespace: uniqueNamespace('negative'), clock, closeStore: false, logger: false, ttl: '1h', negativeTtl: '5s' });
  });
  afterAll(async () => {
    await cache.close();
    await store.close();
  });

  it('keeps null and undefined for negativeTtl, returns each as itself, and inspect tells them from values', async () => {
    let runs = 0;
    const nothing = (value: null | undefined) => () => {
      runs++;
      return value;
    };
    expect(await cache.getOrSet('null', nothing(null))).toBeNull();
    expect(await cache.getOrSet('undefined', nothing(undefined))).toBeUndefined();
    await cache.idle();
    expect(await cache.getOrSet('null', nothing(undefined))).toBeNull();
    expect(await cache.getOrSet('undefined', nothing(null))).toBeUndefined();
    expect(runs).toBe(2);
    await cache.getOrSet('value', () => 'v');
    await cache.idle();
    expect(await cache.inspect('null')).toEqual({ state: 'fresh', age: 0, ttl: 5000, tags: [], negative: true });
    expect(await cache.inspect('undefined')).toMatchObject({ ttl: 5000, negative: true });
    expect(await cache.inspect('value')).toMatchObject({ ttl: 3_600_000, negative: false });
    // get cannot tell a cached undefined from a miss; lookup can.
    expect(await cache.get('undefined')).toBeUndefined();
    expect(await cache.lookup('undefined')).toEqual({ value: undefined, state: 'fresh', staleMs: 0 });
    expect(await cache.lookup('absent')).toBeUndefined();
    clock.advance(5000);
    expect((await cache.inspect('null')).state).toBe('missing');
    expect(await cache.getOrSet('null', () => 'found')).toBe('found');
    expect((await cache.inspect('value')).state).toBe('fresh');
  });

  it('takes negativeTtl per call, lets ctx.setOptions win, and leaves set() alone', async () => {
    await cache.getOrSet('short', () => null, { negativeTtl: 100 });
    await cache.getOrSet('chosen', (ctx) => {
      ctx.setOptions({ ttl: '1m' });
      return null;
    });
    await cache.set('direct', null);
    await cache.idle();
    expect(await cache.inspect('short')).toMatchObject({ ttl: 100, negative: true });
    expect(await cache.inspect('chosen')).toMatchObject({ ttl: 60_000, negative: true });
    expect(await cache.inspect('direct')).toMatchObject({ ttl: 3_600_000, negative: true });
  });
});

describe('negative', () => {
  it('is a predicate of the cache: an empty list can be a cached "nothing" too', async () => {
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), clock, ttl: '1h', negativeTtl: '30s', negative: (value) => Array.isArray(value) && value.length === 0 });
    await cache.getOrSet('empty', () => []);
    await cache.getOrSet('null', () => null);
    await cache.idle();
    expect(await cache.inspect('empty')).toMatchObject({ ttl: 30_000, negative: true });
    expect(await cache.inspect('null')).toMatchObject({ ttl: 3_600_000, negative: false });
    await cache.close();
  });

  it('changes nothing without negativeTtl but what inspect says', async () => {
    const cache = createCache({ store: memoryStore(), clock: new FakeClock(), ttl: '1m' });
    await cache.getOrSet('k', () => null);
    await cache.idle();
    expect(await cache.inspect('k')).toMatchObject({ ttl: 60_000, negative: true });
    await cache.close();
  });

  it('the json serializer refuses undefined at the call (null is stored)', async () => {
    const cache = createCache({ store: memoryStore(), serializer: 'json', negativeTtl: '5s' });
    await expect(cache.getOrSet('u', () => undefined)).rejects.toThrow(/JSON cannot represent a value of type undefined/);
    expect(await cache.getOrSet('n', () => null)).toBeNull();
    await cache.idle();
    expect(await cache.inspect('n')).toMatchObject({ negative: true });
    await cache.close();
  });

  it('refuses a bad negativeTtl or predicate, naming the option', async () => {
    const store = memoryStore();
    expect(() => createCache({ store, negativeTtl: 0 })).toThrow(/"negativeTtl" must be greater than 0/);
    expect(() => createCache({ store, negativeTtl: 'soon' as '1s' })).toThrow(/negativeTtl/);
    expect(() => createCache({ store, negative: true as unknown as () => boolean })).toThrow(/"negative" must be a function/);
    const cache = createCache({ store });
    await expect(cache.getOrSet('k', () => null, { negativeTtl: -1 })).rejects.toThrow(/negativeTtl/);
    await cache.close();
  });
});
