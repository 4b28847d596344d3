import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startBridge, type Bridge } from '../../products/bridge/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { clusterNodes, redisUrl, requireCluster, requireRedis } from '../support/redis-env.ts';
import { baseOnly, CountingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from './targets.ts';

/** A promise and the function that settles it: interleavings are driven by hand, never by timing. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

let bridge: Bridge | undefined;
afterAll(async () => {
  await bridge?.close();
});

/** Every kind of store: each capability set the engine has a path for. */
const targets: Array<{ name: string; open: () => Store | Promise<Store>; fences: boolean }> = [
  { name: 'memory', open: () => memoryStore(), fences: true },
  { name: 'sqlite', open: () => tempSqliteStore(), fences: true },
  { name: 'base-only (Workers KV and third-party stores)', open: () => baseOnly(memoryStore()), fences: false },
  ...(requireRedis()
    ? [
        { name: 'valkey', open: () => valkeyStore(redisUrl!), fences: true },
        {
          name: 'upstash',
          open: async () => {
            bridge ??= await startBridge({ redisUrl: redisUrl! });
            return upstashStore({ url: bridge.url, token: bridge.token });
          },
          fences: true,
        },
      ]
    : []),
  ...(requireCluster() ? [{ name: 'valkey cluster', open: () => valkeyStore({ cluster: clusterNodes!.split(',') }), fences: true }] : []),
];

describe.each(targets)('soft invalidation and inspect on $name', ({ open, fences }) => {
  let store: Store;
  let cache: Cache;
  let namespace: string;
  const clock = new FakeClock();
  beforeAll(async () => {
    store = await open();
    namespace = uniqueNamespace('soft');
    cache = createCache({ store, namespace, clock, closeStore: false, lockTimeout: 2000 });
  });
  afterAll(async () => {
    await cache.close();
    await store.close();
  });

  /** `count` concurrent getOrSets of `key`, with a factory counting its runs. */
  async function concurrently(key: string, count: number, value: string, tags?: string[]) {
    let runs = 0;
    const results = await Promise.all(
      Array.from({ length: count }, () =>
        cache.getOrSet(
          key,
          () => {
            runs++;
            return value;
          },
          { ttl: 60_000, grace: 30_000, tags },
        ),
      ),
    );
    await cache.idle();
    return { results, runs };
  }

  it('expire: a fresh entry turns stale, 100 concurrent callers get the stale value while one refresh runs', async () => {
    await cache.set('ex:a', 'old', { ttl: 60_000, grace: 30_000 });
    clock.advance(1000);
    expect(await cache.expire('ex:a')).toBe(1);
    expect(await cache.get('ex:a')).toBeUndefined(); // get serves fresh values only
    const stale = await cache.inspect('ex:a');
    expect(stale).toEqual({ state: 'stale', age: 1000, ttl: 0, tags: [], negative: false });
    const { results, runs } = await concurrently('ex:a', 100, 'new');
    expect(results).toEqual(Array(100).fill('old'));
    expect(runs).toBe(1);
    expect(await cache.get('ex:a')).toBe('new');
    expect((await cache.inspect('ex:a')).state).toBe('fresh');
  });

  it('expire counts only fresh entries; missing, stale and foreign values are left alone', async () => {
    await cache.set('ex:b', 1, { ttl: 60_000, grace: 30_000 });
    await cache.set('ex:c', 2, { ttl: 1000, grace: 30_000 });
    clock.advance(2000); // ex:c is stale already
    expect(await cache.expire(['ex:b', 'ex:c', 'ex:none'])).toBe(1);
    expect(await cache.expire('ex:b')).toBe(0);
    expect(await cache.expire([])).toBe(0);
    await expect(cache.expire('')).rejects.toThrow(TypeError);
    await cache.incr('ex:counter');
    expect(await cache.expire('ex:counter')).toBe(0);
    expect(await cache.incr('ex:counter')).toBe(2);
  });

  it('expire keeps the grace counted from now: past it the entry is a miss', async () => {
    await cache.set('ex:d', 'old', { ttl: 3_600_000, grace: 30_000 });
    expect(await cache.expire('ex:d')).toBe(1);
    clock.advance(29_000);
    expect((await cache.inspect('ex:d')).state).toBe('stale');
    clock.advance(2000);
    expect((await cache.inspect('ex:d')).state).toBe('missing');
    const { results, runs } = await concurrently('ex:d', 10, 'new');
    expect(results).toEqual(Array(10).fill('new'));
    expect(runs).toBe(1);
  });

  it('expire without grace makes the entry a miss, filled once', async () => {
    await cache.set('ex:e', 'old', { ttl: 60_000 });
    expect(await cache.expire('ex:e')).toBe(1);
    const { results, runs } = await concurrently('ex:e', 10, 'new');
    expect(results).toEqual(Array(10).fill('new'));
    expect(runs).toBe(1);
  });

  it('expire is seen by another cache on the same store (another process): stale, refreshed once there', async () => {
    const other = createCache({ store, namespace, clock, closeStore: false });
    try {
      await cache.set('ex:f', 'old', { ttl: 60_000, grace: 30_000 });
      expect(await other.get('ex:f')).toBe('old');
      expect(await cache.expire('ex:f')).toBe(1);
      let runs = 0;
      const results = await Promise.all(Array.from({ length: 20 }, () => other.getOrSet('ex:f', () => `new${++runs}`, { ttl: 60_000, grace: 30_000 })));
      expect(results).toEqual(Array(20).fill('old'));
      await other.idle();
      expect(runs).toBe(1);
      expect(await cache.get('ex:f')).toBe('new1');
    } finally {
      await other.close();
    }
  });

  it('two caches on one store (two processes) serving the same stale entry refresh it once between them where the store holds leases', async () => {
    const other = createCache({ store, namespace, clock, closeStore: false });
    try {
      await cache.set('ex:g', 'old', { ttl: 60_000, grace: 30_000 });
      expect(await cache.expire('ex:g')).toBe(1);
      const refreshing = gate();
      let runs = 0;
      const factory = async () => {
        runs++;
        await refreshing.promise;
        return 'new';
      };
      const options = { ttl: 60_000, grace: 30_000 };
      const first = await Promise.all(Array.from({ length: 10 }, () => cache.getOrSet('ex:g', factory, options)));
      // The first cache's refresh holds the lease while its factory runs; let it take it.
      for (let i = 0; i < 20 && runs === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await Promise.all(Array.from({ length: 10 }, () => other.getOrSet('ex:g', factory, options)));
      refreshing.open();
      await Promise.all([cache.idle(), other.idle()]);
      expect([...first, ...second]).toEqual(Array(20).fill('old'));
      // Without fill leases (Workers KV, third-party stores) each process refreshes once.
      const leases = typeof store.add === 'function' && typeof store.compareAndDelete === 'function';
      expect(runs).toBe(leases ? 1 : 2);
      expect(await other.get('ex:g')).toBe('new');
    } finally {
      await other.close();
    }
  });

  it('soft invalidateTags: entries of the tag are served stale and refreshed once; others stay fresh', async () => {
    await cache.set('st:a', 'a1', { ttl: 60_000, grace: 30_000, tags: ['soft-a'] });
    await cache.set('st:b', 'b1', { ttl: 60_000, grace: 30_000, tags: ['soft-other'] });
    const outdated: string[] = [];
    cache.events.addEventListener('outdated', (event) => outdated.push(event.detail.key));
    expect(await cache.invalidateTags(['soft-a'], { soft: true })).toBe(true);
    expect(await cache.get('st:a')).toBeUndefined();
    expect(await cache.inspect('st:a')).toEqual({ state: 'stale', age: 0, ttl: 0, tags: ['soft-a'], negative: false });
    expect((await cache.inspect('st:b')).state).toBe('fresh');
    const { results, runs } = await concurrently('st:a', 100, 'a2', ['soft-a']);
    expect(results).toEqual(Array(100).fill('a1'));
    expect(runs).toBe(1);
    expect(await cache.get('st:a')).toBe('a2');
    expect(outdated).toEqual([]); // stale, not outdated
  });

  it('soft: two soft moves in a row still serve stale; a hard move after them (or before the fill) is a miss', async () => {
    await cache.set('st:c', 'c1', { ttl: 60_000, grace: 30_000, tags: ['soft-c'] });
    await cache.invalidateTags(['soft-c'], { soft: true });
    await cache.invalidateTags(['soft-c'], { soft: true });
    expect((await cache.inspect('st:c')).state).toBe('stale');
    await cache.invalidateTags(['soft-c']);
    expect((await cache.inspect('st:c')).state).toBe('missing');
    await cache.set('st:c', 'c2', { ttl: 60_000, grace: 30_000, tags: ['soft-c'] });
    await cache.invalidateTags(['soft-c'], { soft: true });
    expect((await cache.inspect('st:c')).state).toBe('stale');
    // An entry filled before a hard move stays a miss when soft moves follow.
    await cache.set('st:d', 'd1', { ttl: 60_000, grace: 30_000, tags: ['soft-d'] });
    await cache.invalidateTags(['soft-d']);
    await cache.invalidateTags(['soft-d'], { soft: true });
    expect((await cache.inspect('st:d')).state).toBe('missing');
  });

  it('soft: the grace counts from the soft move; an entry without grace is a miss', async () => {
    await cache.set('st:e', 'e1', { ttl: 3_600_000, grace: 10_000, tags: ['soft-e'] });
    await cache.set('st:f', 'f1', { ttl: 3_600_000, tags: ['soft-e'] });
    await cache.invalidateTags(['soft-e'], { soft: true });
    expect((await cache.inspect('st:f')).state).toBe('missing');
    clock.advance(9000);
    expect((await cache.inspect('st:e')).state).toBe('stale');
    clock.advance(2000);
    expect((await cache.inspect('st:e')).state).toBe('missing');
  });

  it('soft: an entry whose soft-moved tag is one of several records the others too', async () => {
    await cache.set('st:g', 'g1', { ttl: 60_000, grace: 30_000, tags: ['soft-g1', 'soft-g2'] });
    await cache.invalidateTags(['soft-g1'], { soft: true });
    expect((await cache.inspect('st:g')).state).toBe('stale');
    await cache.invalidateTags(['soft-g2']);
    expect((await cache.inspect('st:g')).state).toBe('missing');
  });

  it('soft: a plain read that knows the tags an entry recorded (read with it) still tells stale from outdated', async () => {
    await cache.set('st:h', 'h1', { ttl: 60_000, grace: 30_000, tags: ['soft-h'] });
    expect((await cache.inspect('st:h')).state).toBe('fresh'); // learns the recorded tags
    expect(await cache.get('st:h')).toBe('h1');
    await cache.invalidateTags(['soft-h'], { soft: true });
    expect((await cache.inspect('st:h')).state).toBe('stale');
    expect(await cache.getOrSet('st:h', () => 'h2', { ttl: 60_000, grace: 30_000, tags: ['soft-h'] })).toBe('h1');
    await cache.idle();
    expect(await cache.get('st:h')).toBe('h2');
    expect((await cache.inspect('st:h')).state).toBe('fresh');
    await cache.invalidateTags(['soft-h']);
    expect((await cache.inspect('st:h')).state).toBe('missing');
  });

  it('soft options are checked', async () => {
    await expect(cache.invalidateTags(['t'], { soft: 'yes' as unknown as boolean })).rejects.toThrow(/"soft" must be a boolean/);
    await expect(cache.invalidateTags(['t'], { sotf: true } as unknown as { soft: boolean })).rejects.toThrow(/unknown option "sotf"/);
  });

  // Stores without write fences (KV) cannot show this: not registered there, rather than skipped.
  if (fences)
    describe('write fences keep their guarantee with soft invalidations', () => {
      /** A fill whose factory read the source before a write began, and returns once released. */
      function racingFill(key: string, tag: string) {
        const reading = gate();
        const release = gate<string>();
        const fill = cache.getOrSet(
          key,
          async () => {
            reading.open();
            return release.promise;
          },
          { ttl: 60_000, grace: 30_000, tags: [tag] },
        );
        return { fill, reading: reading.promise, release: release.open };
      }

      /** After the interleaving: the pre-commit value is never served, fresh or stale. */
      async function neverServesOld(key: string, tag: string) {
        await cache.idle();
        expect((await cache.inspect(key)).state).toBe('missing');
        let runs = 0;
        expect(await cache.getOrSet(key, () => `new${++runs}`, { ttl: 60_000, grace: 30_000, tags: [tag] })).toBe('new1');
        await cache.invalidateTags([tag], { soft: true });
        expect(await cache.getOrSet(key, () => `new${++runs}`, { ttl: 60_000, grace: 30_000, tags: [tag] })).toBe('new1'); // stale, not 'old'
        await cache.idle();
        expect(await cache.get(key)).toBe('new2');
      }

      for (const when of ['before the write', 'during the write', 'after the commit'] as const) {
        it(`a fill that raced a write is never served, with a soft invalidation ${when}`, async () => {
          const key = `fence:${when}`;
          const tag = `fence-${when.replaceAll(' ', '-')}`;
          const { fill, reading, release } = racingFill(key, tag);
          await reading;
          if (when === 'before the write') await cache.invalidateTags([tag], { soft: true });
          const write = await cache.beginWrite([tag]);
          if (when === 'during the write') await cache.invalidateTags([tag], { soft: true });
          await write.commit();
          if (when === 'after the commit') await cache.invalidateTags([tag], { soft: true });
          release('old');
          expect(await fill).toBe('old');
          await neverServesOld(key, tag);
        });
      }

      it('while a write lease is held, soft invalidations store nothing: fills read the source, stale refreshes are dropped', async () => {
        await cache.set('fence:held', 'before', { ttl: 60_000, grace: 30_000, tags: ['fence-held'] });
        const write = await cache.beginWrite(['fence-held']);
        await cache.invalidateTags(['fence-held'], { soft: true });
        let runs = 0;
        expect(await cache.getOrSet('fence:held', () => `during${++runs}`, { ttl: 60_000, grace: 30_000, tags: ['fence-held'] })).toBe('during1');
        await cache.idle();
        expect((await cache.inspect('fence:held')).state).toBe('missing');
        await write.commit();
        expect((await cache.inspect('fence:held')).state).toBe('missing');
      });
    });
});

describe('expire with an L1 tier, and its round trips', () => {
  it('expire drops the L1 copy of this process', async () => {
    const cache = createCache({ store: memoryStore(), namespace: uniqueNamespace('expire-l1'), l1: { consistency: 'strict' } });
    try {
      await cache.set('k', 'v', { ttl: 60_000, grace: 30_000 });
      expect(await cache.get('k')).toBe('v');
      expect(await cache.expire('k')).toBe(1);
      expect(await cache.get('k')).toBeUndefined();
      expect(await cache.getOrSet('k', () => 'new', { ttl: 60_000, grace: 30_000 })).toBe('v');
    } finally {
      await cache.close();
    }
  });

  it('expire costs one store call where the store has expireEntries, a read and a write elsewhere', async () => {
    const native = new CountingStore(memoryStore());
    const plain = new CountingStore(baseOnly(memoryStore()));
    for (const counting of [native, plain]) {
      const cache = createCache({ store: counting, namespace: uniqueNamespace('expire-rt') });
      try {
        await cache.setMany([
          { key: 'a', value: 1 },
          { key: 'b', value: 2 },
        ]);
        counting.reset();
        expect(await cache.expire(['a', 'b', 'c'])).toBe(2);
        expect(counting.calls.map((call) => call.method)).toEqual(counting === native ? ['expireEntries'] : ['getMany', 'setMany']);
      } finally {
        await cache.close();
      }
    }
  });
});
