import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { withCache } from '../../runtimes/workers/index.ts';
import type { WorkerContext } from '../../runtimes/workers/index.ts';
import { DEFAULT_FACTORY_TIMEOUT_MS, resolveOptions } from '../../src/cache/options.ts';
import { cache as honoCache } from '../../src/bindings/hono/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** A waitUntil that keeps what it is given. */
function collector() {
  const received: Array<Promise<unknown>> = [];
  return { received, waitUntil: (promise: Promise<unknown>) => void received.push(promise) };
}

/** A factory that waits for `release()`: what waits on it can be told apart from what does not. */
function gated<T>(value: T) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    factory: async () => {
      await gate;
      return value;
    },
  };
}

/** Whether `promises` are all settled after the event loop has run (timers included). */
async function allSettledSoon(promises: Array<Promise<unknown>>): Promise<boolean> {
  let settled = false;
  void Promise.all(promises).then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

/** Puts `key` in its grace window: stored, then the clock moved past its ttl. */
async function staleEntry(cache: Cache, clock: FakeClock, key: string): Promise<void> {
  await cache.getOrSet(key, () => 'v1', { ttl: 1000, grace: 60_000 });
  await cache.idle();
  clock.advance(2000);
}

describe('factoryTimeout', () => {
  it('is finite by default, false turns it off, 0 and junk are refused', () => {
    const store = memoryStore();
    expect(resolveOptions({ store }).factoryTimeoutMs).toBe(DEFAULT_FACTORY_TIMEOUT_MS);
    expect(DEFAULT_FACTORY_TIMEOUT_MS).toBe(10_000);
    expect(resolveOptions({ store, factoryTimeout: false }).factoryTimeoutMs).toBe(Infinity);
    expect(resolveOptions({ store, factoryTimeout: '2s' }).factoryTimeoutMs).toBe(2000);
    expect(() => resolveOptions({ store, factoryTimeout: 0 })).toThrow('factoryTimeout must be greater than 0 (false for no limit)');
    expect(() => resolveOptions({ store, factoryTimeout: true as never })).toThrow(RangeError);
  });

  it('with false, a factory that outlives any timer still serves its value', async () => {
    const cache = createCache({ store: memoryStore(), factoryTimeout: false, logger: false });
    let signal: AbortSignal | undefined;
    const value = await cache.getOrSet('long', async (ctx) => {
      signal = ctx.signal;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'done';
    });
    expect(value).toBe('done');
    expect(signal?.aborted).toBe(false);
    await cache.close();
  });
});

describe('waitUntil', () => {
  it('createCache waitUntil receives the store write after a fill and the grace refresh', async () => {
    const { received, waitUntil } = collector();
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), clock, waitUntil, logger: false });
    await cache.getOrSet('k', () => 'v1', { ttl: 1000, grace: 60_000 });
    // The write (and the fill lease's release): once they settle, the entry is stored.
    expect(received.length).toBeGreaterThanOrEqual(1);
    await Promise.all(received);
    expect(cache.stats().bytesWritten).toBeGreaterThan(0);
    const before = received.length;
    clock.advance(2000);
    expect(await cache.getOrSet('k', () => 'v2')).toBe('v1');
    expect(received).toHaveLength(before + 1); // the refresh, its own write a part of it
    await Promise.all(received);
    expect(await cache.get('k')).toBe('v2');
    await cache.close();
  });

  it('a call waitUntil wins over the cache one', async () => {
    const perCache = collector();
    const perCall = collector();
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), clock, waitUntil: perCache.waitUntil, logger: false });
    await staleEntry(cache, clock, 'k');
    const before = perCache.received.length;
    expect(await cache.getOrSet('k', () => 'v2', { waitUntil: perCall.waitUntil })).toBe('v1');
    expect(perCall.received).toHaveLength(1);
    expect(perCache.received.length).toBe(before);
    await cache.close();
  });

  it('wrap passes its waitUntil to every call, and checks it where the function is wrapped', async () => {
    const { received, waitUntil } = collector();
    const cache = createCache({ store: memoryStore(), logger: false });
    const double = cache.wrap(async (n: number) => n * 2, { name: 'double', waitUntil });
    expect(await double(2)).toBe(4);
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(() => cache.wrap(async (n: number) => n, { name: 'bad', waitUntil: 'no' as never })).toThrow('"waitUntil" must be a function');
    await cache.close();
  });

  it('a throwing waitUntil changes nothing: the refresh runs and close waits for it', async () => {
    const clock = new FakeClock();
    const cache = createCache({
      store: memoryStore(),
      clock,
      logger: false,
      waitUntil: () => {
        throw new Error('outside a request');
      },
    });
    await staleEntry(cache, clock, 'k');
    expect(await cache.getOrSet('k', () => 'v2')).toBe('v1');
    await cache.idle();
    expect(await cache.get('k')).toBe('v2');
    await cache.close();
  });

  it('refuses a waitUntil that is not a function, on createCache and per call, with the typo check', async () => {
    expect(() => createCache({ store: memoryStore(), waitUntil: 1 as never })).toThrow('createCache: "waitUntil" must be a function');
    const cache = createCache({ store: memoryStore(), logger: false });
    await expect(cache.getOrSet('k', () => 1, { waitUntil: {} as never })).rejects.toThrow('getOrSet("k"): "waitUntil" must be a function');
    await expect(cache.getOrSet('k', () => 1, { waitUtil: () => {} } as never)).rejects.toThrow('unknown option "waitUtil" (did you mean "waitUntil"?)');
    await cache.close();
  });

  /**
   * Serves one request through `binding` (which calls `values.getOrSet` on a stale key) with a
   * platform context, and checks that the refresh is among what the platform was given.
   */
  async function refreshHeldByPlatform(serve: (values: Cache, load: () => Promise<string>, context: WorkerContext) => Promise<Response>): Promise<void> {
    const clock = new FakeClock();
    const values = createCache({ store: memoryStore(), clock, logger: false });
    await staleEntry(values, clock, 'config');
    const refresh = gated('v2');
    const { received, waitUntil } = collector();
    const response = await serve(values, refresh.factory, { waitUntil, passThroughOnException: () => {}, props: {} });
    expect(await response.text()).toBe('v1');
    // One of the promises the platform was given is the refresh, still held by its gate.
    expect(await allSettledSoon(received)).toBe(false);
    refresh.release();
    await Promise.all(received);
    expect(await values.get('config')).toBe('v2');
    await values.close();
  }

  it('the Hono middleware hands the refresh started by a handler getOrSet to executionCtx.waitUntil', async () => {
    await refreshHeldByPlatform((values, load, executionCtx) => {
      const app = new Hono();
      app.use('*', honoCache({ store: memoryStore() }));
      app.get('/', async (c) => c.text(await values.getOrSet('config', load)));
      return Promise.resolve(app.fetch(new Request('http://example.test/'), {}, executionCtx));
    });
  });

  it('the Workers binding hands the refresh started by the Worker getOrSet to ctx.waitUntil', async () => {
    await refreshHeldByPlatform((values, load, ctx) => {
      const worker = withCache(async () => new Response(await values.getOrSet('config', load)), { log: false });
      return worker.fetch(new Request('http://example.test/'), {}, ctx);
    });
  });

  it('outside any binding request, with no waitUntil given, nothing is handed anywhere and close still waits', async () => {
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), clock, logger: false });
    await staleEntry(cache, clock, 'k');
    expect(await cache.getOrSet('k', () => 'v2')).toBe('v1');
    await cache.close();
  });
});
