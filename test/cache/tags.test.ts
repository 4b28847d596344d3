import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCache, WriteFenceError, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { baseOnly, CountingStore } from '../support/wrapped-stores.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';
import { tagKeys } from '../../src/cache/key-space.ts';

/** A promise and the function that settles it: interleavings are driven by hand, never by timing. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe.each(engineTargets)('tags, fenced writes and fill leases on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  let namespace: string;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    namespace = uniqueNamespace('tags');
    cache = createCache({ store, namespace, clock, closeStore: false, lockTimeout: 2000 });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('serves a tagged entry until its tag is invalidated, then misses with an outdated event', async () => {
    const outdated: string[] = [];
    cache.events.addEventListener('outdated', (e) => outdated.push(`${e.detail.key}:${e.detail.tags.join(',')}`));
    let runs = 0;
    const load = () => cache.getOrSet('user:1', () => ({ name: `v${++runs}` }), { tags: ['users', 'user:1'] });
    expect(await load()).toEqual({ name: 'v1' });
    expect(await load()).toEqual({ name: 'v1' });
    expect(await cache.get('user:1')).toEqual({ name: 'v1' }); // a plain get checks the recorded tags too
    expect(await cache.invalidateTags(['user:1'])).toBe(true);
    expect(await cache.get('user:1')).toBeUndefined();
    expect(await load()).toEqual({ name: 'v2' });
    expect(runs).toBe(2);
    expect(outdated).toContain('user:1:user:1');
    expect(cache.stats().outdated).toBeGreaterThanOrEqual(1);
  });

  it('set with tags records them; getMany and has respect them', async () => {
    expect(await cache.set('a', 1, { tags: ['t-set'] })).toBe(true);
    expect(await cache.set('b', 2)).toBe(true);
    expect(await cache.getMany(['a', 'b'])).toEqual([1, 2]);
    await cache.invalidateTags(['t-set', 't-unused']);
    expect(await cache.getMany(['a', 'b'])).toEqual([undefined, 2]);
    expect(await cache.has('a')).toBe(false);
    expect(
      await cache.setMany([
        { key: 'c', value: 3, tags: ['t-many'] },
        { key: 'd', value: 4 },
      ]),
    ).toBe(true);
    await cache.invalidateTags(['t-many']);
    expect(await cache.getMany(['c', 'd'])).toEqual([undefined, 4]);
  });

  it('a fill that raced a write (begun and committed mid-fill) is never served afterwards', async () => {
    const reading = gate();
    const release = gate<string>();
    const fill = cache.getOrSet(
      'row',
      async () => {
        reading.open();
        return release.promise; // the factory read the old row before the write began
      },
      { tags: ['rows'] },
    );
    await reading.promise;
    const write = await cache.beginWrite(['rows']);
    await write.commit();
    release.open('old');
    expect(await fill).toBe('old'); // its caller gets what it read
    await cache.idle();
    let runs = 0;
    expect(await cache.getOrSet('row', () => `new${++runs}`, { tags: ['rows'] })).toBe('new1');
    expect(runs).toBe(1);
  });

  it('a call arriving after a commit never joins a fill whose factory began before it', async () => {
    const reading = gate();
    const release = gate<string>();
    const first = cache.getOrSet(
      'joined',
      async () => {
        reading.open();
        return release.promise;
      },
      { tags: ['joins'] },
    );
    await reading.promise;
    await cache.mutate(['joins'], () => undefined);
    let runs = 0;
    const later = cache.getOrSet('joined', () => `new${++runs}`, { tags: ['joins'] });
    expect(await later).toBe('new1'); // not the in-flight fill's old value
    release.open('old');
    expect(await first).toBe('old');
    // Callers arriving while nothing moved still share one factory run.
    const shared = gate<string>();
    let sharedRuns = 0;
    const calls = Array.from({ length: 5 }, () =>
      cache.getOrSet(
        'joined-2',
        () => {
          sharedRuns++;
          return shared.promise;
        },
        { tags: ['joins'] },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    shared.open('one');
    expect(await Promise.all(calls)).toEqual(Array(5).fill('one'));
    expect(sharedRuns).toBe(1);
  });

  it('while a write lease is held a fill reads the source and is not stored; after the commit one fill stores', async () => {
    const fenced: string[] = [];
    cache.events.addEventListener('fenced', (e) => fenced.push(e.detail.key));
    const write = await cache.beginWrite(['orders']);
    let runs = 0;
    expect(await cache.getOrSet('order:9', () => `o${++runs}`, { tags: ['orders'] })).toBe('o1');
    expect(await cache.getOrSet('order:9', () => `o${++runs}`, { tags: ['orders'] })).toBe('o2'); // nothing was stored
    expect(fenced).toEqual(['order:9', 'order:9']);
    await write.commit();
    const after = await Promise.all(Array.from({ length: 5 }, () => cache.getOrSet('order:9', () => `o${++runs}`, { tags: ['orders'] })));
    expect(after).toEqual(Array(5).fill('o3'));
    await cache.idle();
    expect(await cache.get('order:9')).toBe('o3');
  });

  it('a tagged set during a write lease is refused (false) and a set after the commit is stored', async () => {
    const write = await cache.beginWrite(['prices']);
    expect(await cache.set('price', 10, { tags: ['prices'] })).toBe(false);
    await write.commit();
    expect(await cache.set('price', 11, { tags: ['prices'] })).toBe(true);
    expect(await cache.get('price')).toBe(11);
  });

  it('abort releases without invalidating; commit after abort is a WriteFenceError; mutate commits even when fn throws', async () => {
    await cache.set('kept', 'k', { tags: ['ab'] });
    const write = await cache.beginWrite(['ab']);
    await write.abort();
    await expect(write.commit()).rejects.toBeInstanceOf(WriteFenceError);
    expect(await cache.set('kept', 'k2', { tags: ['ab'] })).toBe(true); // no lease left behind
    expect(await cache.mutate(['ab'], () => 'done')).toBe('done');
    expect(await cache.get('kept')).toBeUndefined();
    await cache.set('kept', 'k3', { tags: ['ab'] });
    await expect(cache.mutate(['ab'], () => Promise.reject(new Error('rolled back late')))).rejects.toThrow('rolled back late');
    expect(await cache.get('kept')).toBeUndefined();
    expect(await cache.set('kept', 'k4', { tags: ['ab'] })).toBe(true);
  });

  it('an evicted generation counter never makes an old entry current again', async () => {
    await cache.set('ev', 'old', { tags: ['evicted'] });
    expect(await cache.get('ev')).toBe('old');
    // The counter vanishes (evicted, expired): it comes back at a new random epoch.
    await store.delete([`cachette:${namespace}:#{tag:evicted}:gen`]);
    expect(await cache.get('ev')).toBeUndefined();
  });

  it('hides every write whatever the clocks of readers and writers say (±10 s)', async () => {
    const ahead = new FakeClock();
    ahead.advance(10_000);
    const behind = new FakeClock();
    behind.advance(-10_000);
    const reader = createCache({ store, namespace, clock: ahead, closeStore: false });
    const writer = createCache({ store, namespace, clock: behind, closeStore: false });
    try {
      let version = 0;
      for (let i = 0; i < 3; i++) {
        expect(await reader.getOrSet('skew', () => ++version, { tags: ['skew'] })).toBe(version);
        await writer.mutate(['skew'], () => undefined);
        expect(await reader.get('skew')).toBeUndefined();
      }
      expect(version).toBe(3);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('two caches over one store (two processes) run the factory once for a cold key, through the fill lease', async () => {
    const other = createCache({ store, namespace, clock, closeStore: false });
    const waitedBefore = cache.stats().leaseWaits;
    try {
      let runs = 0;
      const factory = async () => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return 'shared';
      };
      const all = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? cache : other).getOrSet('lease-cold', factory, { tags: ['leased'] })));
      expect(all).toEqual(Array(20).fill('shared'));
      expect(runs).toBe(1);
      expect(cache.stats().leaseWaits - waitedBefore + other.stats().leaseWaits).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('rejects bad tags with clear errors before touching the store', async () => {
    await expect(cache.getOrSet('x', () => 1, { tags: 'users' as unknown as string[] })).rejects.toThrow(TypeError);
    await expect(cache.set('x', 1, { tags: [''] })).rejects.toThrow(/non-empty string/);
    await expect(cache.set('x', 1, { tags: Array.from({ length: 65 }, (_, i) => `t${i}`) })).rejects.toThrow(RangeError);
    await expect(cache.beginWrite([])).rejects.toThrow(/at least one tag/);
    await expect(cache.invalidateTags([42 as unknown as string])).rejects.toThrow(TypeError);
    await expect(cache.mutate(['t'], undefined as unknown as () => void)).rejects.toThrow(/needs a function/);
  });
});

describe('round trips of tagged reads', () => {
  let counting: CountingStore;
  let cache: Cache;
  let namespace: string;
  beforeAll(async () => {
    const target = engineTargets[engineTargets.length - 1]!; // valkey when the server is there
    counting = new CountingStore(target.open());
    namespace = uniqueNamespace('tag-rt');
    cache = createCache({ store: counting, namespace });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
  });

  /**
   * What reached the store for one tick of tagged reads. On one ordered connection (valkey) the
   * entries travel with the tick's plain reads (the first call of an idle connection at once,
   * the others folded into one pipeline) beside one read of the tags, all in the same round
   * trip; elsewhere one script reads entries and tags together.
   */
  const expectOneTick = () => {
    const methods = counting.calls.map((c) => c.method);
    if (!counting.ordered) return expect(methods).toEqual(['readWithGenerations']);
    expect(methods.filter((m) => m === 'readWithGenerations')).toHaveLength(1);
    const entryReads = methods.filter((m) => m !== 'readWithGenerations');
    expect(['get', 'pipeline', 'getMany']).toEqual(expect.arrayContaining(entryReads));
    expect(entryReads.filter((m) => m === 'get').length).toBeLessThanOrEqual(1);
    expect(entryReads.filter((m) => m !== 'get').length).toBeLessThanOrEqual(1);
  };

  it('a tagged hit costs one round trip, and 50 concurrent tagged hits cost one together', async () => {
    await cache.getOrSet('hot', () => 'v', { tags: ['a', 'b'] });
    await cache.idle();
    counting.reset();
    expect(await cache.getOrSet('hot', () => 'never', { tags: ['a', 'b'] })).toBe('v');
    expectOneTick();
    counting.reset();
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.getOrSet('hot', () => 'never', { tags: ['a', 'b'] })));
    expect(all).toEqual(Array(50).fill('v'));
    expectOneTick();
  });

  it('tagged reads of one tick fold into one round trip even when their callers awaited more or less before', async () => {
    for (let i = 0; i < 10; i++) await cache.set(`deep:${i}`, i, { tags: ['a'] });
    counting.reset();
    const step = async () => {
      await Promise.resolve();
    };
    const reads = Array.from({ length: 10 }, async (_, i) => {
      for (let depth = 0; depth < i % 5; depth++) await step();
      return cache.getOrSet(`deep:${i}`, () => -1, { tags: ['a'] });
    });
    expect(await Promise.all(reads)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expectOneTick();
  });

  it('a plain get of a tagged entry reads its recorded tags with it once this process has read it: one round trip, and an invalidation is still seen', async () => {
    await cache.set('recorded', 1, { tags: ['r1', 'r2'] });
    counting.reset();
    expect(await cache.get('recorded')).toBe(1);
    // The first read learns the tags from the entry: a second read for them.
    expect(counting.calls.map((c) => c.method)).toEqual(['get', 'readWithGenerations']);
    counting.reset();
    expect(await cache.get('recorded')).toBe(1);
    // Then the entry and its tags' counters in one plain read (not a get, then the tags once it answered).
    expect(counting.calls.map((c) => c.method)).toEqual(['getMany']);
    counting.reset();
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.get('recorded')));
    expect(all).toEqual(Array(20).fill(1));
    // One plain read for all (on an ordered store the first goes ahead, the others fold behind it).
    const methods = counting.calls.map((c) => c.method);
    expect(methods).not.toContain('readWithGenerations');
    expect(methods.length).toBeLessThanOrEqual(counting.ordered ? 2 : 1);
    await cache.invalidateTags(['r2']);
    expect(await cache.get('recorded')).toBeUndefined();
    // Rewritten with other tags: the one it records and was not read with costs one more read, once.
    await cache.set('recorded', 2, { tags: ['r3'] });
    counting.reset();
    expect(await cache.get('recorded')).toBe(2);
    expect(counting.calls.map((c) => c.method)).toEqual(['getMany', 'readWithGenerations']);
    counting.reset();
    expect(await cache.get('recorded')).toBe(2);
    expect(counting.calls.map((c) => c.method)).toEqual(['getMany']);
    await cache.invalidateTags(['r3']);
    expect(await cache.get('recorded')).toBeUndefined();
  });

  it('a plain read with the recorded tags serves nothing when a counter is missing (evicted) or holds garbage', async () => {
    const counter = tagKeys(`cachette:${namespace}:`, 'ev').generation;
    for (const spoil of [() => counting.delete([counter]), () => counting.set(counter, new TextEncoder().encode('garbage'))]) {
      await cache.set('evicted', 1, { tags: ['ev'] });
      expect(await cache.get('evicted')).toBe(1);
      expect(await cache.get('evicted')).toBe(1);
      await spoil();
      expect(await cache.get('evicted')).toBeUndefined();
    }
  });

  it('an untagged get of an untagged entry stays one plain get', async () => {
    await cache.set('plain', 1);
    counting.reset();
    expect(await cache.get('plain')).toBe(1);
    expect(counting.calls.map((c) => c.method)).toEqual(['get']);
  });
});

describe('tags on a store without the generation capabilities (Workers KV, third-party stores)', () => {
  it('invalidates by generation and never fences', async () => {
    const cache = createCache({ store: baseOnly(engineTargets[0]!.open()), namespace: uniqueNamespace('base') });
    try {
      let runs = 0;
      expect(await cache.getOrSet('k', () => ++runs, { tags: ['t'] })).toBe(1);
      expect(await cache.getOrSet('k', () => ++runs, { tags: ['t'] })).toBe(1);
      await cache.invalidateTags(['t']);
      expect(await cache.getOrSet('k', () => ++runs, { tags: ['t'] })).toBe(2);
      const write = await cache.beginWrite(['t']);
      expect(await cache.getOrSet('k', () => ++runs, { tags: ['t'] })).toBe(3); // no fences here: only generations
      await write.commit();
      expect(await cache.get('k')).toBeUndefined();
    } finally {
      await cache.close();
    }
  });
});
