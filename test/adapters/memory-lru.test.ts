import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { StoreRefusedError } from '../../src/store/index.ts';
import { bytes, sleep, text } from '../support/suite-api.ts';

describe('memory store bounds', () => {
  it('evicts the least recently used entry past maxEntries', async () => {
    const store = memoryStore({ maxEntries: 3 });
    await store.set('a', bytes('1'));
    await store.set('b', bytes('2'));
    await store.set('c', bytes('3'));
    await store.get('a'); // a becomes the most recently used
    await store.set('d', bytes('4'));
    expect((await store.getMany(['a', 'b', 'c', 'd'])).map(text)).toEqual(['1', undefined, '3', '4']);
    expect(store.size).toBe(3);
  });

  it('evicts by total bytes and refuses a value larger than the budget', async () => {
    const store = memoryStore({ maxBytes: 1000 });
    await store.set('x', new Uint8Array(400));
    await store.set('y', new Uint8Array(400));
    await store.set('z', new Uint8Array(400));
    expect(await store.get('x')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(1000);
    // Too large to ever fit: refused, so that the caller learns it was not stored.
    await expect(store.set('huge', new Uint8Array(5000))).rejects.toBeInstanceOf(StoreRefusedError);
    expect(await store.get('huge')).toBeUndefined();
    expect((await store.get('z'))?.length).toBe(400);
  });

  it('sweeps expired entries lazily on write, without timers', async () => {
    const store = memoryStore();
    for (let i = 0; i < 8; i++) await store.set(`old:${i}`, bytes('x'), 10);
    await sleep(30);
    expect(store.size).toBe(8); // nothing runs in the background
    await store.set('new1', bytes('y'));
    await store.set('new2', bytes('y'));
    expect(store.size).toBe(2);
  });

  it('rejects nonsensical bounds', () => {
    expect(() => memoryStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => memoryStore({ maxBytes: -1 })).toThrow(RangeError);
  });
});
