import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { BatchFactoryContext } from '../../src/cache/create-cache.ts';
import { createCache } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { CountingStore } from '../support/wrapped-stores.ts';

/** A cache folding each tick's store calls (batch: true) over a counting memory store. */
function setup() {
  const store = new CountingStore(memoryStore(), { local: false });
  const clock = new FakeClock();
  const cache = createCache({ store, clock, logger: false, batch: true, timeout: 60_000 });
  return { store, clock, cache };
}

/** Store round trips since the last reset: one pipeline (or one plain call) each. */
const roundTrips = (store: CountingStore) => store.calls.length;

describe('getOrSetMany', () => {
  it('calls the factory once with only the missing keys; one round trip for the reads, one for the writes', async () => {
    const { cache, store } = setup();
    await cache.set('user:1', 'Ada');
    await cache.idle();
    store.reset();
    const asked: string[][] = [];
    const values = await cache.getOrSetMany(['user:1', 'user:2', 'user:3'], async (keys) => {
      asked.push([...keys]);
      return keys.map((key) => `name of ${key}`);
    });
    expect(values).toEqual(['Ada', 'name of user:2', 'name of user:3']);
    expect(asked).toEqual([['user:2', 'user:3']]);
    await cache.idle();
    const kinds = store.calls.map((call) => call.ops ?? [call.method]);
    // The tick batcher folds the reads into one getMany and the writes into one setMany.
    expect(kinds).toEqual([['getMany'], ['setMany']]);
    expect(roundTrips(store)).toBe(2);
    expect(await cache.getMany(['user:2', 'user:3'])).toEqual(['name of user:2', 'name of user:3']);
    await cache.close();
  });

  it('takes a Map, and keeps the order of the keys asked for (a repeated key read once)', async () => {
    const { cache } = setup();
    const values = await cache.getOrSetMany(['b', 'a', 'b'], (keys) => new Map(keys.map((key) => [key, key.toUpperCase()])));
    expect(values).toEqual(['B', 'A', 'B']);
    await cache.close();
  });

  it('joins keys another caller is filling, and concurrent getOrSet calls join its fills', async () => {
    const { cache } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let singleRuns = 0;
    const single = cache.getOrSet('k1', async () => {
      singleRuns++;
      await gate;
      return 'from getOrSet';
    });
    const asked: string[][] = [];
    const many = cache.getOrSetMany(['k1', 'k2'], async (keys) => {
      asked.push([...keys]);
      await gate;
      return keys.map((key) => `batch ${key}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const joined = cache.getOrSet('k2', () => 'never');
    release();
    expect(await many).toEqual(['from getOrSet', 'batch k2']);
    expect(await single).toBe('from getOrSet');
    expect(await joined).toBe('batch k2');
    expect(asked).toEqual([['k2']]);
    expect(singleRuns).toBe(1);
    expect(cache.stats().coalesced).toBeGreaterThanOrEqual(2);
    await cache.close();
  });

  it('serves stale keys at once and refreshes them apart; the factory gets only the misses', async () => {
    const { cache, clock } = setup();
    await cache.set('s', 'old', { ttl: 1000, grace: 60_000 });
    clock.advance(2000);
    const asked: string[][] = [];
    const values = await cache.getOrSetMany(['s', 'm'], async (keys) => {
      asked.push([...keys]);
      return keys.map((key) => `new ${key}`);
    });
    expect(values).toEqual(['old', 'new m']);
    await cache.idle();
    expect(asked.sort()).toEqual([['m'], ['s']]);
    expect(await cache.get('s')).toBe('new s');
    await cache.close();
  });

  it('skip, fail and setOptions apply to every key the factory filled', async () => {
    const { cache, clock } = setup();
    await cache.getOrSetMany(['a', 'b'], (keys, ctx: BatchFactoryContext<string>) => {
      expect(ctx.keys).toEqual(['a', 'b']);
      expect(ctx.signal.aborted).toBe(false);
      ctx.setOptions({ ttl: 1000 });
      return keys.map((key) => key);
    });
    await cache.idle();
    clock.advance(1001);
    expect(await cache.getMany(['a', 'b'])).toEqual([undefined, undefined]);
    await cache.getOrSetMany(['c'], (keys, ctx) => {
      ctx.skip();
      return keys.map(() => 'skipped');
    });
    await cache.idle();
    expect(await cache.has('c')).toBe(false);
    await expect(cache.getOrSetMany(['d', 'e'], (_keys, ctx) => ctx.fail(new Error('source 503')))).rejects.toThrow('source 503');
    await cache.close();
  });

  it('refuses a factory answer of the wrong shape, and bad arguments, with clear errors', async () => {
    const { cache } = setup();
    await expect(cache.getOrSetMany(['x', 'y'], () => ['only one'])).rejects.toThrow('the factory must return 2 values in the order of the keys');
    await expect(cache.getOrSetMany(['x'], () => new Map())).rejects.toThrow('has no value for key "x"');
    await expect(cache.getOrSetMany('x' as never, () => [])).rejects.toThrow('needs an array of keys');
    await expect(cache.getOrSetMany(['x'], 'f' as never)).rejects.toThrow('needs a factory function');
    await expect(cache.getOrSetMany(['x'], () => [1], { tll: 1 } as never)).rejects.toThrow('did you mean "ttl"?');
    expect(await cache.getOrSetMany([], () => [])).toEqual([]);
    await cache.close();
  });

  it('honours version and schema per key', async () => {
    const { cache } = setup();
    await cache.set('v1', 'old');
    const asked: string[][] = [];
    expect(
      await cache.getOrSetMany(
        ['v1'],
        (keys) => {
          asked.push([...keys]);
          return keys.map(() => 'new');
        },
        { version: 2 },
      ),
    ).toEqual(['new']);
    expect(asked).toEqual([['v1']]);
    expect(cache.stats().invalid).toBe(1);
    await cache.close();
  });
});
