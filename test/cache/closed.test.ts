/**
 * Calls after close(): a closed cache rejects every call that reads, writes or invalidates with
 * a CacheClosedError naming the call; a closed store rejects with a StoreClosedError, which a
 * cache over it passes to its caller as it is: no miss, no breaker, no "unreachable" line, on
 * memory and on a real server. (Each store's own refusal is in the contract suite.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, StoreError, type Cache, type CacheLogger } from '../../src/index.ts';
import { CacheClosedError, StoreClosedError } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { uniqueNamespace } from './targets.ts';

/** Every call of a cache that reads, writes or invalidates, with the name its error gives it. */
function everyCall(cache: Cache): Array<[string, () => Promise<unknown>]> {
  return [
    ['get("k")', () => cache.get('k')],
    ['getMany(["k"])', () => cache.getMany(['k'])],
    ['set("k")', () => cache.set('k', 1)],
    ['setMany()', () => cache.setMany([{ key: 'k', value: 1 }])],
    ['getOrSet("k")', () => cache.getOrSet('k', () => 1)],
    ['getOrSetMany(["k"])', () => cache.getOrSetMany(['k'], () => [1])],
    ['has("k")', () => cache.has('k')],
    ['incr("n")', () => cache.incr('n')],
    ['delete("k")', () => cache.delete('k')],
    ['expire("k")', () => cache.expire('k')],
    ['inspect("k")', () => cache.inspect('k')],
    ['invalidateTags(["t"])', () => cache.invalidateTags(['t'])],
    ['beginWrite(["t"])', () => cache.beginWrite(['t'])],
    ['mutate(["t"])', () => cache.mutate(['t'], () => 1)],
    ['clear()', () => cache.clear()],
    ['a wrapped function', () => cache.wrap(async function load() {})()],
  ];
}

/** A logger that keeps its lines. */
function recording(): CacheLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (line) => lines.push(line), info: (line) => lines.push(line) };
}

/** Runs every call on `cache` and checks each rejects with a StoreClosedError of `code`; returns the errors. */
async function expectRefused(cache: Cache, code: 'E_CACHE_CLOSED' | 'E_STORE_CLOSED'): Promise<StoreClosedError[]> {
  const errors: StoreClosedError[] = [];
  for (const [name, call] of everyCall(cache)) {
    const error = await call().then(
      (value) => new Error(`${name} resolved ${JSON.stringify(value)}`),
      (error: unknown) => error,
    );
    expect(error, name).toBeInstanceOf(StoreClosedError);
    expect((error as StoreClosedError).code, name).toBe(code);
    errors.push(error as StoreClosedError);
  }
  return errors;
}

/** Namespaces the tests wrote under, for the cleanup of a shared server. */
const used: string[] = [];
function namespace(): string {
  used.push(uniqueNamespace('closed'));
  return used.at(-1)!;
}

/** A closed cache, and what a new cache over its closed store does, on `open()`'s store. */
function closing(open: () => Store) {
  it('a closed cache rejects every call with a CacheClosedError naming it, runs no factory, and still answers stats, health, idle and close', async () => {
    const logger = recording();
    const cache = createCache({ store: open(), namespace: namespace(), logger });
    await cache.set('k', 1);
    const closed = cache.close();
    // From the call of close() on, not only once it has resolved.
    await expect(cache.get('k')).rejects.toBeInstanceOf(CacheClosedError);
    await closed;
    let ran = 0;
    const errors = await expectRefused(cache, 'E_CACHE_CLOSED');
    await expect(cache.getOrSet('k', () => ++ran)).rejects.toThrow('cachette: getOrSet("k"): the cache is closed (its close() was called); create a new cache to make more calls');
    expect(ran).toBe(0);
    const names = everyCall(cache).map(([name]) => name);
    errors.forEach((error, i) => {
      expect(error).toBeInstanceOf(CacheClosedError);
      expect(error).toBeInstanceOf(StoreError);
      if (names[i] !== 'a wrapped function') expect(error.message).toContain(`cachette: ${names[i]}: the cache is closed`);
    });
    expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
    await cache.idle();
    await cache.close();
    expect(logger.lines).toEqual([]);
  });

  it('a cache over a closed store passes the StoreClosedError on: no miss, no error event, no breaker, no "unreachable" line', async () => {
    const store = open();
    await store.close();
    const logger = recording();
    const cache = createCache({ store, namespace: namespace(), logger, circuitBreaker: { threshold: 2 } });
    const events: unknown[] = [];
    cache.events.addEventListener('error', (event) => events.push(event.detail));
    cache.events.addEventListener('health', (event) => events.push(event.detail));
    let ran = 0;
    await expect(cache.getOrSet('k', () => ++ran)).rejects.toBeInstanceOf(StoreClosedError);
    expect(ran).toBe(0);
    // Many times over: a breaker counting these would have opened after two.
    for (let i = 0; i < 3; i++) await expectRefused(cache, 'E_STORE_CLOSED');
    const message = await cache.get('k').catch((error: Error) => error.message);
    expect(message).toMatch(/: the store is closed \(its close\(\) was called\); open a new one to make more calls$/);
    expect(message).toContain(store.address ?? store.name);
    expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
    expect(cache.stats()).toMatchObject({ storeErrors: 0, misses: 0, hits: 0 });
    expect(events).toEqual([]);
    expect(logger.lines).toEqual([]);
    await cache.close();
  });

  it('a store closed while a fill runs: the caller gets the value, the write that failed is an error event', async () => {
    const store = open();
    const cache = createCache({ store, namespace: namespace(), logger: false });
    const errors: Array<{ operation: string; error: unknown }> = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail));
    const value = await cache.getOrSet('k', async () => {
      await store.close();
      return 'computed';
    });
    expect(value).toBe('computed');
    await cache.idle();
    // The write, and the fill lease's release where the store holds leases.
    expect(errors.map((error) => error.operation)).toContain('set');
    for (const { error } of errors) expect(error).toBeInstanceOf(StoreClosedError);
    await expect(cache.get('k')).rejects.toBeInstanceOf(StoreClosedError);
    await cache.close();
  });
}

describe('after close(), on memory', () => closing(() => memoryStore()));

describe('a store closed while its breaker holds it as down', () => {
  it('answers the next probe with the StoreClosedError, and every call after it too (no probe left waiting)', async () => {
    const clock = new FakeClock();
    const store = valkeyStore('redis://127.0.0.1:1'); // port 1 refuses connections
    const cache = createCache({ store, clock, logger: false, circuitBreaker: { threshold: 1, cooldownMs: 1000 } });
    expect(await cache.get('k')).toBeUndefined(); // refused: the breaker opens
    expect(cache.health().reads).toBe('down');
    await store.close();
    expect(await cache.get('k')).toBeUndefined(); // skipped by the open breaker
    clock.advance(1000);
    for (let i = 0; i < 3; i++) await expect(cache.get('k')).rejects.toBeInstanceOf(StoreClosedError);
    await cache.close();
  });
});

describe.runIf(requireRedis())('after close(), on valkey', () => {
  afterAll(async () => {
    const cleanup = valkeyStore(redisUrl!);
    for (const space of used) await createCache({ store: cleanup, namespace: space, closeStore: false }).clear();
    await cleanup.close();
  });
  closing(() => valkeyStore(redisUrl!));
});
