import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { sleep } from '../support/suite-api.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

describe.each(engineTargets)('getOrSet on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    cache = createCache({ store, namespace: uniqueNamespace('gos'), clock });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('runs the factory once for 100 concurrent misses on a cold key', async () => {
    let calls = 0;
    const before = cache.stats();
    const factory = async () => {
      calls++;
      await sleep(30);
      return { answer: 42 };
    };
    const results = await Promise.all(Array.from({ length: 100 }, () => cache.getOrSet('cold', factory, { ttl: 60_000 })));
    expect(calls).toBe(1);
    expect(results.every((r) => r.answer === 42)).toBe(true);
    expect(cache.stats().coalesced - before.coalesced).toBe(99);
    expect(await cache.get('cold')).toEqual({ answer: 42 });
  });

  it('hands a factory error to every waiter and does not cache it', async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      await sleep(10);
      throw new Error('origin down');
    };
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => cache.getOrSet('boom', failing)));
    expect(calls).toBe(1);
    expect(settled.every((s) => s.status === 'rejected' && (s.reason as Error).message === 'origin down')).toBe(true);
    expect(await cache.has('boom')).toBe(false);
    expect(await cache.getOrSet('boom', () => 'recovered')).toBe('recovered');
    expect(calls).toBe(1);
  });

  it('serves stale inside grace while exactly one background refresh runs', async () => {
    await cache.getOrSet('graceful', () => 'v1', { ttl: 40_000, grace: 60_000 });
    await cache.idle();
    clock.advance(40_001);
    expect(await cache.get('graceful')).toBeUndefined(); // get serves fresh values only
    let refreshes = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const refresh = async ({ stale }: { stale: string | undefined }) => {
      refreshes++;
      expect(stale).toBe('v1');
      await gate;
      return 'v2';
    };
    const served = await Promise.all(Array.from({ length: 10 }, () => cache.getOrSet('graceful', refresh, { ttl: 60_000 })));
    expect(served).toEqual(Array(10).fill('v1'));
    // The refresh starts once it holds the key's fill lease (a store call away).
    await vi.waitFor(() => expect(refreshes).toBe(1));
    release();
    await cache.idle(); // waits for background refreshes and their writes
    expect(await cache.getOrSet('graceful', refresh)).toBe('v2');
    expect(refreshes).toBe(1);
  });

  it('keeps serving the stale value when the refresh fails, and reports the error', async () => {
    await cache.getOrSet('sie', () => 'old', { ttl: 30_000, grace: 60_000 });
    await cache.idle();
    clock.advance(30_001);
    const errors: unknown[] = [];
    const onError = (e: Event) => errors.push((e as CustomEvent).detail);
    cache.events.addEventListener('error', onError);
    try {
      expect(await cache.getOrSet('sie', () => Promise.reject(new Error('still down')))).toBe('old');
      await cache.idle();
      expect(errors).toMatchObject([{ source: 'factory', operation: 'refresh', keys: ['sie'] }]);
      expect(await cache.getOrSet('sie', () => Promise.reject(new Error('again')))).toBe('old');
      await cache.idle();
    } finally {
      cache.events.removeEventListener('error', onError);
    }
  });

  it('treats entries past grace as misses', async () => {
    await cache.set('gone', 'x', { ttl: 20_000, grace: 20_000 });
    clock.advance(40_001);
    expect(await cache.getOrSet('gone', () => 'fresh')).toBe('fresh');
  });

  it('rejects a non-function factory with a TypeError', async () => {
    await expect(cache.getOrSet('nofactory', 'x' as unknown as () => string)).rejects.toThrow(TypeError);
  });
});
