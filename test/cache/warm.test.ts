import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache, type CacheEventMap, type Store } from '../../src/index.ts';
import { storePairs } from './store-pairs.ts';
import { uniqueNamespace } from './targets.ts';

/** A promise and the function that settles it: interleavings driven by hand, never by timing. */
function opening(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

const keysOf = (label: string, count: number) => Array.from({ length: count }, (_, i) => `${label}:${i}`);

describe.each(storePairs)('cache.warm on $name', (pair) => {
  let caches: [Cache, Cache];
  let cleanup: () => void;
  let namespace: string;
  let stores: [Store, Store];
  beforeAll(() => {
    const opened = pair.open();
    namespace = uniqueNamespace('warm');
    stores = opened.stores;
    // A lease long enough that a waiter never takes over from a holder that is only slow.
    caches = [createCache({ store: stores[0], namespace, lockTimeout: '30s' }), createCache({ store: stores[1], namespace, lockTimeout: '30s' })];
    cleanup = opened.cleanup;
  });
  afterAll(async () => {
    await caches[0].clear();
    await Promise.all(caches.map((cache) => cache.close()));
    cleanup();
  });

  it('two caches warming the same keys over one store run each key’s factory once in total', { timeout: 60_000 }, async () => {
    const keys = keysOf('fleet', 24);
    const runs = new Map<string, number>();
    const factory = async (key: string) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      // Hold the fill across a store round trip, so that the other cache finds its lease.
      await caches[0].has('anything');
      return `value of ${key}`;
    };
    const [first, second] = await Promise.all(caches.map((cache) => cache.warm(keys, factory, { concurrency: 4 })));
    expect([...runs.values()]).toEqual(keys.map(() => 1));
    expect(runs.size).toBe(keys.length);
    expect(first!.filled + second!.filled).toBe(keys.length);
    expect(first!.present + second!.present).toBe(keys.length);
    expect([first!.failed, second!.failed]).toEqual([[], []]);
    await Promise.all(caches.map((cache) => cache.idle()));
    expect(await caches[1].getMany(keys)).toEqual(keys.map((key) => `value of ${key}`));
  });

  it('leaves stored keys alone, reports each key as a warm event, and goes on past a failing key', async () => {
    const [cache] = caches;
    await cache.set('events:stored', 'already here');
    const seen: Array<CacheEventMap['warm']> = [];
    const listener = (event: CustomEvent<CacheEventMap['warm']>) => seen.push(event.detail);
    cache.events.addEventListener('warm', listener);
    const failure = new Error('the source refused');
    const report = await cache.warm(
      ['events:stored', 'events:bad', 'events:new'],
      (key) => {
        if (key === 'events:bad') throw failure;
        return `computed ${key}`;
      },
      { ttl: '1h', concurrency: 1 },
    );
    cache.events.removeEventListener('warm', listener);
    expect(report).toEqual({ filled: 1, present: 1, missing: 0, failed: [{ key: 'events:bad', error: failure }] });
    expect(seen).toEqual([
      { key: 'events:stored', outcome: 'present', done: 1, total: 3 },
      { key: 'events:bad', outcome: 'failed', done: 2, total: 3, error: failure },
      { key: 'events:new', outcome: 'filled', done: 3, total: 3 },
    ]);
    await cache.idle();
    expect(await cache.get('events:stored')).toBe('already here');
    expect(await cache.get('events:new')).toBe('computed events:new');
    expect((await cache.inspect('events:new')).ttl).toBeGreaterThan(59 * 60_000);
  });

  it('runs at most `concurrency` factories at once', async () => {
    const keys = keysOf('bounded', 9);
    let running = 0;
    let most = 0;
    let started = 0;
    // Factories wait for each other until three run together (or the last key started): with no bound, all nine would.
    let gate = opening();
    const report = await caches[0].warm(
      keys,
      async (key) => {
        running++;
        started++;
        most = Math.max(most, running);
        if (running === 3 || started === keys.length) {
          gate.resolve();
          gate = opening();
        } else {
          await gate.promise;
        }
        running--;
        return key;
      },
      { concurrency: 3 },
    );
    expect(report.filled).toBe(9);
    expect(most).toBe(3);
  });
});

describe.each(storePairs)('cache.warm(keys) without a factory on $name: an L1 primed from the store', (pair) => {
  const consistencies = ['strict', 'bounded'] as const;
  let writer: Cache;
  let cleanup: () => void;
  let namespace: string;
  let stores: [Store, Store];
  beforeAll(async () => {
    const opened = pair.open();
    stores = opened.stores;
    namespace = uniqueNamespace('prime');
    writer = createCache({ store: stores[0], namespace, closeStore: false });
    cleanup = opened.cleanup;
    await writer.setMany(keysOf('stored', 150).map((key) => ({ key, value: `stored ${key}` })));
  });
  afterAll(async () => {
    await writer.clear();
    await writer.close();
    await Promise.all(stores.map((store) => store.close()));
    cleanup();
  });

  it.each(consistencies)('with consistency %s: the next reads of warmed keys are served from memory', async (consistency) => {
    const reader = createCache({ store: stores[1], namespace, closeStore: false, l1: consistency === 'bounded' ? { consistency, maxStaleness: '1h' } : { consistency } });
    const keys = [...keysOf('stored', 150), 'never-stored'];
    const report = await reader.warm(keys, undefined, { concurrency: 2 });
    expect(report).toEqual({ filled: 0, present: 150, missing: 1, failed: [] });
    const before = reader.stats().bytesRead;
    expect(await reader.get('stored:0')).toBe('stored stored:0');
    expect(await reader.get('stored:149')).toBe('stored stored:149');
    expect(reader.stats().bytesRead).toBe(before);
    await reader.close();
  });
});

describe('cache.warm refusals', () => {
  let cache: Cache;
  afterEach(async () => {
    await cache.close();
  });

  it('refuses bad keys, factories and options before anything is read or computed', async () => {
    cache = createCache({ store: memoryStore() });
    let runs = 0;
    const factory = () => ++runs;
    const warm = cache.warm.bind(cache) as (keys: unknown, factory?: unknown, options?: unknown) => Promise<unknown>;
    await expect(warm('one-key', factory)).rejects.toThrow(/array of keys/);
    await expect(warm(['ok', ''], factory)).rejects.toThrow(/non-empty string/);
    await expect(warm(['ok'], 'not a function')).rejects.toThrow(/factory function/);
    for (const concurrency of [0, 1.5, -1, '4', Number.NaN]) await expect(warm(['ok'], factory, { concurrency })).rejects.toThrow(/concurrency must be an integer of at least 1/);
    await expect(warm(['ok'], factory, { concurency: 2 })).rejects.toThrow(/unknown option "concurency" \(did you mean "concurrency"\?\)/);
    await expect(warm(['ok'], factory, { ttl: -5 })).rejects.toThrow(RangeError);
    await expect(warm(['ok'], factory, null)).rejects.toThrow(/options must be an object/);
    expect(runs).toBe(0);
    expect(await cache.has('ok')).toBe(false);
    expect(await cache.warm([], factory)).toEqual({ filled: 0, present: 0, missing: 0, failed: [] });
  });

  it('refuses to warm without a factory when the cache has no L1 (there would be nothing to prime)', async () => {
    cache = createCache({ store: memoryStore() });
    await expect(cache.warm(['a'])).rejects.toThrow(/has none \(the "l1" option\)/);
  });
});
