import { describe, expect, it } from 'vitest';
import { MemoryStore, memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';
import type { GenerationRead, GenerationReadResult } from '../../src/store/types.ts';

/**
 * A local store offering the synchronous reads, counting which kind of read the engine used,
 * and failing them on demand (the memory store beneath does the work).
 */
class SyncCountingStore extends MemoryStore {
  readonly used: string[] = [];
  failing = false;

  override get(key: string) {
    this.used.push('get');
    return super.get(key);
  }
  override getMany(keys: readonly string[]) {
    this.used.push('getMany');
    return super.getMany(keys);
  }
  override readWithGenerations(read: GenerationRead) {
    this.used.push('readWithGenerations');
    return super.readWithGenerations(read);
  }
  override getSync(key: string) {
    this.used.push('getSync');
    this.#fail();
    return super.getSync(key);
  }
  override getManySync(keys: readonly string[]) {
    this.used.push('getManySync');
    this.#fail();
    return super.getManySync(keys);
  }
  override readWithGenerationsSync(read: GenerationRead): GenerationReadResult {
    this.used.push('readWithGenerationsSync');
    this.#fail();
    return super.readWithGenerationsSync(read);
  }
  #fail(): void {
    if (this.failing) throw new Error('disk I/O error');
  }
}

describe('the memory store reads synchronously', () => {
  it('getSync, getManySync and readWithGenerationsSync answer what their promises do', async () => {
    const store = memoryStore();
    await store.set('a', new Uint8Array([1]));
    await store.set('b', new Uint8Array([2]), 1);
    expect(store.getSync('a')).toEqual(await store.get('a'));
    expect(store.getManySync(['a', 'none'])).toEqual(await store.getMany(['a', 'none']));
    const read = { keys: ['a'], tags: [{ generation: 'g', fence: 'f', soft: 's' }], epoch: 2 ** 40 };
    expect(store.readWithGenerationsSync(read)).toEqual(await store.readWithGenerations(read));
    // A write is visible to the next synchronous read at once, without awaiting it.
    void store.set('a', new Uint8Array([3]));
    expect(store.getSync('a')).toEqual(new Uint8Array([3]));
  });
});

describe('the engine over a store with synchronous reads', () => {
  it('answers get, getMany, has and getOrSet hits with the synchronous reads only', async () => {
    const store = new SyncCountingStore();
    const cache = createCache({ store });
    await cache.set('k', { n: 1 });
    await cache.getOrSet('t', () => 'tagged', { tags: ['x'] });
    store.used.length = 0;
    expect(await cache.get('k')).toEqual({ n: 1 });
    expect(await cache.get('absent')).toBeUndefined();
    expect(await cache.getMany(['k', 'absent'])).toEqual([{ n: 1 }, undefined]);
    expect(await cache.has('k')).toBe(true);
    expect(await cache.getOrSet('k', () => ({ n: 2 }))).toEqual({ n: 1 });
    expect(await cache.getOrSet('t', () => 'again', { tags: ['x'] })).toBe('tagged');
    expect(await cache.get('t')).toBe('tagged'); // the tags it records are checked synchronously too
    expect(store.used).toEqual(['getSync', 'getSync', 'getManySync', 'getSync', 'getSync', 'readWithGenerationsSync', 'getSync', 'readWithGenerationsSync']);
    await cache.invalidateTags(['x']);
    expect(await cache.get('t')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 5, misses: 4, outdated: 1 });
    await cache.close();
  });

  it('sees a write made just before, even when it was not awaited', async () => {
    const cache = createCache({ store: new SyncCountingStore() });
    void cache.set('k', 1);
    expect(await cache.get('k')).toBe(1);
    void cache.set('k', 2);
    expect(await cache.getOrSet('k', () => 3)).toBe(2);
    await cache.close();
  });

  it('turns a synchronous failure into a miss with an error event, a rejection in strict mode, and counts it for the breaker', async () => {
    const store = new SyncCountingStore();
    const cache = createCache({ store, circuitBreaker: { threshold: 2, cooldownMs: 60_000 } });
    await cache.set('k', 1);
    const errors: string[] = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail.operation));
    store.failing = true;
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.getMany(['k'])).toEqual([undefined]);
    expect(cache.health().reads).toBe('down');
    expect(await cache.getOrSet('k', () => 'computed')).toBe('computed'); // skipped by the breaker: a miss
    expect(errors).toEqual(['get', 'getMany']);
    expect(cache.stats()).toMatchObject({ storeErrors: 2, storeSkipped: 1 });
    await cache.close();

    const failing = new SyncCountingStore();
    const strictCache = createCache({ store: failing, strict: true });
    failing.failing = true;
    await expect(strictCache.get('k')).rejects.toThrow('disk I/O error');
    await expect(strictCache.getMany(['k'])).rejects.toThrow('disk I/O error');
    await expect(strictCache.getOrSet('k', () => 1)).rejects.toThrow('disk I/O error');
    await strictCache.close();
  });

  it('keeps the promises when the store is batched, and under every layer that acts on reads', async () => {
    const store = new SyncCountingStore();
    const cache = createCache({ store, batch: true });
    await cache.set('k', 1);
    store.used.length = 0;
    expect(await cache.get('k')).toBe(1);
    expect(store.used).toEqual(['get']);
    await cache.close();
  });
});
