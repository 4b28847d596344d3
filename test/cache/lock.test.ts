import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, MissingCapabilityError, type Cache } from '../../src/index.ts';
import { CacheClosedError, LockTimeoutError } from '../../src/store/index.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { baseOnly } from '../support/wrapped-stores.ts';
import { storePairs } from './store-pairs.ts';
import { uniqueNamespace } from './targets.ts';

/** A resource that refuses writes carrying a fencing token below the largest it accepted: what the lock's docs ask a protected resource to do. */
class FencedResource {
  highest = 0;
  readonly writes: string[] = [];
  write(token: number, value: string): boolean {
    if (token < this.highest) return false;
    this.highest = token;
    this.writes.push(value);
    return true;
  }
}

describe.each(storePairs)('cache.lock on $name', (pair) => {
  let caches: [Cache, Cache];
  let cleanup: () => void;
  let stores: [Store, Store];
  beforeAll(() => {
    const opened = pair.open();
    stores = opened.stores;
    const namespace = uniqueNamespace('lock');
    caches = [createCache({ store: opened.stores[0], namespace }), createCache({ store: opened.stores[1], namespace })];
    cleanup = opened.cleanup;
  });
  afterAll(async () => {
    await caches[0].clear();
    await Promise.all(caches.map((cache) => cache.close()));
    cleanup();
  });

  it('one holder at a time: another cache is refused until the first releases, then gets a larger token', async () => {
    const [a, b] = caches;
    const first = await a.lock('job', { ttl: '30s' });
    expect(first.name).toBe('job');
    expect(Number.isSafeInteger(first.token) && first.token > 0).toBe(true);
    const refused = await b.lock('job', { ttl: '30s' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LockTimeoutError);
    expect(refused).toMatchObject({ code: 'E_LOCK_TIMEOUT', lock: 'job', waitMs: 0 });
    // Another name is another lock.
    const other = await b.lock('other-job', { ttl: '30s' });
    expect(await other.release()).toBe(true);
    expect(await first.release()).toBe(true);
    const second = await b.lock('job', { ttl: '30s' });
    expect(second.token).toBeGreaterThan(first.token);
    expect(await second.release()).toBe(true);
  });

  it('two caches contending with wait: never two holders at once, and tokens grow in the order the lock was won', { timeout: 60_000 }, async () => {
    let inside = 0;
    let most = 0;
    const won: number[] = [];
    const holder = async (cache: Cache) => {
      const lock = await cache.lock('contended', { ttl: '30s', wait: '50s' });
      won.push(lock.token);
      inside++;
      most = Math.max(most, inside);
      // Yield to the store and back while holding, so that the others really try meanwhile.
      await cache.incr('contended-work', 1);
      inside--;
      expect(await lock.release()).toBe(true);
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => holder(caches[i % 2]!)));
    expect(most).toBe(1);
    expect(won).toHaveLength(12);
    for (let i = 1; i < won.length; i++) expect(won[i]!).toBeGreaterThan(won[i - 1]!);
    expect(await caches[0].incr('contended-work', 0)).toBe(12);
  });

  it('rejects with LockTimeoutError once wait runs out while another holder keeps it', async () => {
    const held = await caches[0].lock('kept', { ttl: '30s' });
    const error = await caches[1].lock('kept', { ttl: '30s', wait: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).waitMs).toBe(60);
    expect((error as Error).message).toContain('"kept"');
    await held.release();
  });

  it('a release after expiry never releases the next holder, and the stale holder is refused by a fenced resource', { timeout: 60_000 }, async () => {
    const resource = new FencedResource();
    const [a, b] = caches;
    const stale = await a.lock('lapsing', { ttl: 300 });
    // b waits for a's lease to lapse (a never releases in time): the store's expiry, not a timer here.
    const next = await b.lock('lapsing', { ttl: '30s', wait: '30s' });
    expect(next.token).toBeGreaterThan(stale.token);
    expect(resource.write(next.token, 'from the holder')).toBe(true);
    // The stale holder wakes up and acts: the resource refuses it.
    expect(resource.write(stale.token, 'from the stale holder')).toBe(false);
    expect(resource.writes).toEqual(['from the holder']);
    // Its release finds its lease gone and leaves the current one alone, however often it is called.
    expect(await stale.release()).toBe(false);
    expect(await stale.release()).toBe(false);
    expect(await a.lock('lapsing', { ttl: '30s' }).catch((e: unknown) => e)).toBeInstanceOf(LockTimeoutError);
    expect(await next.release()).toBe(true);
    // Released once, a second release answers as the first did and takes nothing from a later holder.
    const later = await a.lock('lapsing', { ttl: '30s' });
    expect(await next.release()).toBe(true);
    expect(await b.lock('lapsing', { ttl: '30s' }).catch((e: unknown) => e)).toBeInstanceOf(LockTimeoutError);
    await later.release();
  });

  it('an abort signal stops the wait with its reason, and an aborted one never takes the lock', async () => {
    const held = await caches[0].lock('aborted', { ttl: '30s' });
    const controller = new AbortController();
    const waiting = caches[1].lock('aborted', { ttl: '30s', wait: '30s', signal: controller.signal }).catch((e: unknown) => e);
    const reason = new Error('the job was cancelled');
    controller.abort(reason);
    expect(await waiting).toBe(reason);
    await held.release();
    const already = AbortSignal.abort(reason);
    expect(await caches[1].lock('aborted', { ttl: '30s', signal: already }).catch((e: unknown) => e)).toBe(reason);
    // Nothing was taken by the aborted calls: the lock is free.
    const free = await caches[0].lock('aborted', { ttl: '30s' });
    await free.release();
  });

  it('tokens keep growing after clear() removed the fencing counter', async () => {
    // The counter restarts from the cache's clock: moved by hand here, as time passes between a clear() and the next lock.
    const clock = new FakeClock();
    const cache = createCache({ store: stores[0], namespace: uniqueNamespace('lock-clear'), clock, closeStore: false });
    const before = await cache.lock('cleared', { ttl: '30s' });
    const second = await cache.lock('cleared', { ttl: '30s' }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(LockTimeoutError);
    await before.release();
    await cache.clear();
    clock.advance(1);
    const after = await cache.lock('cleared', { ttl: '30s' });
    expect(after.token).toBeGreaterThan(before.token);
    await after.release();
    await cache.close();
  });

  it('keeps its keys apart from the entries: keys() lists no lock, and an entry named like one is an entry', async () => {
    const lock = await caches[0].lock('k', { ttl: '30s' });
    await caches[0].set('#lock:k', 'an entry');
    const listed: string[] = [];
    for await (const key of caches[0].keys()) listed.push(key);
    expect(listed).toContain('#lock:k');
    expect(listed.filter((key) => key.includes('lock-fence'))).toEqual([]);
    expect(await caches[1].lock('k', { ttl: '30s' }).catch((e: unknown) => e)).toBeInstanceOf(LockTimeoutError);
    expect(await lock.release()).toBe(true);
    expect(await caches[0].get('#lock:k')).toBe('an entry');
  });
});

/** A store whose `incr` answers only after the clock moved by `lagMs` (while `lagging`): a fencing increment that lands after its lease lapsed. */
class LaggingIncr extends StoreLayer {
  lagging = true;
  constructor(
    next: Store,
    private readonly clock: FakeClock,
    private readonly lagMs: number,
  ) {
    super(next);
  }
  override async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const value = await this.next.incr(key, by, ttlMs);
    if (this.lagging) this.clock.advance(this.lagMs);
    return value;
  }
}

describe('cache.lock and a fencing increment that lands after the lease lapsed', () => {
  it('gives the lock up (it may have lapsed, and a later holder counted first) instead of handing out its token', async () => {
    const clock = new FakeClock();
    const store = new LaggingIncr(memoryStore(), clock, 1000);
    const cache = createCache({ store, clock });
    // The store's own expiry is real time: the ttl is long, only the cache's clock says it passed.
    await expect(cache.lock('slow', { ttl: 1000 })).rejects.toThrow(LockTimeoutError);
    store.lagging = false;
    // The lease it won was released: the lock is free at once.
    const lock = await cache.lock('slow', { ttl: 1000 });
    expect(lock.expiresAt).toBe(clock.now() + 1000);
    expect(await lock.release()).toBe(true);
    await cache.close();
  });
});

describe('cache.lock refusals', () => {
  let cache: Cache;
  afterEach(async () => {
    await cache.close();
  });

  it('refuses a store without leases with a MissingCapabilityError', async () => {
    cache = createCache({ store: baseOnly(memoryStore()) });
    const error = await cache.lock('job', { ttl: '10s' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingCapabilityError);
    expect((error as Error).message).toContain('cache.lock needs a store that holds leases');
  });

  it('refuses bad names and options before touching the store', async () => {
    cache = createCache({ store: memoryStore() });
    const lock = cache.lock.bind(cache) as (name: unknown, options: unknown) => Promise<unknown>;
    await expect(lock('', { ttl: '10s' })).rejects.toThrow(TypeError);
    await expect(lock(42, { ttl: '10s' })).rejects.toThrow(/non-empty string name/);
    await expect(lock('job', undefined)).rejects.toThrow(TypeError);
    await expect(lock('job', {})).rejects.toThrow(/needs a ttl/);
    await expect(lock('job', { ttl: 0 })).rejects.toThrow(RangeError);
    await expect(lock('job', { ttl: Infinity })).rejects.toThrow(/finite ttl/);
    await expect(lock('job', { ttl: '10s', wait: -1 })).rejects.toThrow(RangeError);
    await expect(lock('job', { ttl: '10s', ttL: 5 })).rejects.toThrow(/unknown option "ttL"/);
    await expect(lock('job', { ttl: '10s', signal: 'stop' })).rejects.toThrow(/AbortSignal/);
    // None of them took the lock.
    const taken = await cache.lock('job', { ttl: '10s' });
    expect(await taken.release()).toBe(true);
  });

  it('rejects with CacheClosedError once the cache is closed', async () => {
    cache = createCache({ store: memoryStore() });
    await cache.close();
    await expect(cache.lock('job', { ttl: '10s' })).rejects.toThrow(CacheClosedError);
  });
});
