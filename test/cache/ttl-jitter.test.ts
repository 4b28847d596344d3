import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache, type FactoryContext } from '../../src/index.ts';
import { jittered } from '../../src/cache/roles/lifetimes.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];

const KEYS = 10_000;

/**
 * The ttls `inspect` reports for `keys`, read just after they were written (the fake clock has
 * not moved, so each is exactly the fresh time the write drew).
 */
async function ttlsOf(cache: Cache, keys: readonly string[]): Promise<number[]> {
  return (await Promise.all(keys.map((key) => cache.inspect(key)))).map((found) => found.ttl!);
}

/**
 * Checks that `ttls` are spread uniformly over (ttl − spread, ttl]: all inside it, and each tenth
 * of it holding between 80 % and 120 % of its share. With 10,000 draws a tenth's count has a
 * standard deviation of 30 around 1,000: the bounds sit more than six deviations out, so a
 * correct implementation fails them with a probability below 10⁻⁸ per run.
 */
function expectUniform(ttls: readonly number[], ttl: number, spread: number): void {
  expect(Math.max(...ttls)).toBeLessThanOrEqual(ttl);
  expect(Math.min(...ttls)).toBeGreaterThan(ttl - spread);
  const tenths = new Array<number>(10).fill(0);
  for (const left of ttls) tenths[Math.min(9, Math.floor(((ttl - left) / spread) * 10))]!++;
  for (const count of tenths) {
    expect(count).toBeGreaterThanOrEqual(0.08 * ttls.length);
    expect(count).toBeLessThanOrEqual(0.12 * ttls.length);
  }
  expect(new Set(ttls).size).toBeGreaterThan(ttls.length / 2);
}

describe.each(targets)('ttlJitter on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    cache = createCache({ store, namespace: uniqueNamespace('jitter'), clock, closeStore: false, logger: false, ttl: '100s', ttlJitter: 0.1 });
  });
  afterAll(async () => {
    // 20,000 keys of a 100 s ttl on the redis-server every suite shares: gone before the next file.
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('spreads the expiry of 10,000 keys written together by setMany over the last tenth of the ttl', async () => {
    const keys = Array.from({ length: KEYS }, (_, i) => `batch:${i}`);
    expect(await cache.setMany(keys.map((key) => ({ key, value: 1 })))).toBe(true);
    expectUniform(await ttlsOf(cache, keys), 100_000, 10_000);
  });

  it('spreads what getOrSetMany fills, and a duration jitter per call (never more than the ttl)', async () => {
    const keys = Array.from({ length: KEYS }, (_, i) => `filled:${i}`);
    await cache.getOrSetMany(keys, (missing) => missing.map(() => 'v'), { ttl: '60s', ttlJitter: '30s' });
    await cache.idle();
    expectUniform(await ttlsOf(cache, keys), 60_000, 30_000);
    await cache.set('short', 1, { ttl: 1000, ttlJitter: '1h' });
    const { ttl } = await cache.inspect('short');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
  });

  it('applies to getOrSet and to what a factory sets; an endless ttl is left alone', async () => {
    const ttls: number[] = [];
    for (let i = 0; i < 200; i++) {
      await cache.getOrSet(`one:${i}`, (ctx) => {
        ctx.setOptions({ ttl: 50_000, ttlJitter: 0.5 });
        return i;
      });
    }
    await cache.idle();
    ttls.push(
      ...(await ttlsOf(
        cache,
        Array.from({ length: 200 }, (_, i) => `one:${i}`),
      )),
    );
    expect(Math.min(...ttls)).toBeGreaterThan(25_000);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(50_000);
    // 200 uniform draws over 25 s all landing in one second: probability (1/25)^199.
    expect(Math.max(...ttls) - Math.min(...ttls)).toBeGreaterThan(1000);
    await cache.set('endless', 1, { ttl: Infinity });
    expect((await cache.inspect('endless')).ttl).toBe(Infinity);
  });
});

describe('ttlJitter', () => {
  it('is off by default: keys written together expire together', async () => {
    const cache = createCache({ store: memoryStore(), ttl: '100s', clock: new FakeClock() });
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    await cache.setMany(keys.map((key) => ({ key, value: 1 })));
    expect(new Set(await ttlsOf(cache, keys))).toEqual(new Set([100_000]));
    await cache.close();
  });

  it('takes a uniform draw off the fresh time only, in whole ms', () => {
    const lifetimes = { freshFor: 10_000, staleFor: 5000, jitter: { fraction: 0.1 } };
    expect(jittered(lifetimes, () => 0)).toEqual({ freshFor: 10_000, staleFor: 5000, jitter: undefined });
    expect(jittered(lifetimes, () => 0.5)).toEqual({ freshFor: 9500, staleFor: 5000, jitter: undefined });
    expect(jittered({ freshFor: 10_000, staleFor: 0, jitter: { ms: 60_000 } }, () => 0.99999).freshFor).toBe(1);
  });

  it('refuses a number that is not a fraction, and anything that is no duration, naming the option', () => {
    const store = memoryStore();
    for (const bad of [30_000, 1, 0, -0.1, Number.NaN]) {
      expect(() => createCache({ store, ttlJitter: bad })).toThrow(/"ttlJitter" as a number is a fraction of the ttl between 0 and 1 .*'30s'/);
    }
    expect(() => createCache({ store, ttlJitter: '0s' })).toThrow(/"ttlJitter" must be a finite duration greater than 0/);
    expect(() => createCache({ store, ttlJitter: 'soon' as '1s' })).toThrow(/ttlJitter/);
    expect(() => createCache({ store, ttlJitter: {} as unknown as number })).toThrow(TypeError);
  });

  it('refuses a bad value per call, in set, getOrSet and ctx.setOptions', async () => {
    const cache = createCache({ store: memoryStore() });
    await expect(cache.set('k', 1, { ttl: 1000, ttlJitter: 5000 })).rejects.toThrow(/fraction of the ttl/);
    await expect(cache.getOrSet('k', () => 1, { ttlJitter: 2 })).rejects.toThrow(/fraction of the ttl/);
    const factory = (ctx: FactoryContext<number>) => {
      ctx.setOptions({ ttlJitter: '-1s' as '1s' });
      return 1;
    };
    await expect(cache.getOrSet('j', factory)).rejects.toThrow(/ttlJitter/);
    await cache.close();
  });
});
