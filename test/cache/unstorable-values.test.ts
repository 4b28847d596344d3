/**
 * Values no serializer can store as they are: one holding a Promise (a forgotten `await`, which
 * JSON and CBOR would write as `{}`) and a circular one (which CBOR overflowed the stack on). Each
 * is a TypeError at the call site, naming the key, the serializer used and where in the value;
 * nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { findUnstorable } from '../../src/codec/unstorable.ts';
import { createCache, type Serializer } from '../../src/index.ts';

/** A custom serializer (JSON under its own id), and one that writes cycles (it keeps only the keys). */
const customJson: Serializer = { id: 9, name: 'custom', encode: (value) => new TextEncoder().encode(JSON.stringify(value)), decode: (bytes) => JSON.parse(new TextDecoder().decode(bytes)) };
const keysOnly: Serializer = { id: 10, name: 'keys-only', encode: (value) => new TextEncoder().encode(Object.keys(value as object).join(',')), decode: (bytes) => new TextDecoder().decode(bytes) };

const serializers = ['auto', 'cbor', 'json', customJson] as const;
const nameOf = (serializer: (typeof serializers)[number]) => (typeof serializer === 'string' ? serializer : serializer.name);

function circular(): Record<string, unknown> {
  const order: Record<string, unknown> = { id: 1, lines: [{ sku: 'a' }] };
  (order.lines as Array<Record<string, unknown>>)[0]!.order = order;
  return order;
}

describe.each(serializers)('a value that cannot be stored, serializer %s', (serializer) => {
  const setup = () => {
    const store = memoryStore();
    return { store, cache: createCache({ store, serializer, logger: false }) };
  };

  it.each([
    ['a Promise', () => Promise.resolve({ id: 1 }), 'value'],
    ['a Promise in a field', () => ({ id: 1, user: Promise.resolve('Ada') }), 'value.user'],
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise (a query builder) is the case tested
    ['a thenable in an array', () => [1, { then: () => undefined }], 'value[1]'],
    ['a Promise in a Map', () => ({ cache: new Map([['k', Promise.resolve(1)]]) }), 'value.cache.<Map value 0>'],
  ])('%s is a TypeError naming the key, the serializer and where: set, setMany and getOrSet', async (_, make, path) => {
    const { store, cache } = setup();
    const message = `cannot encode the value for key "order:1" with ${nameOf(serializer)}`;
    await expect(cache.set('order:1', make())).rejects.toThrow(message);
    await expect(cache.set('order:1', make())).rejects.toThrow(`${path} is a Promise (or another thenable): was an await forgotten?`);
    await expect(cache.set('order:1', make())).rejects.toBeInstanceOf(TypeError);
    // A factory's own Promise is awaited (that is no mistake); one inside its value is not.
    if (path !== 'value') await expect(cache.getOrSet<unknown>('order:1', make)).rejects.toThrow(message);
    await expect(cache.setMany([{ key: 'order:1', value: make() }])).rejects.toThrow(message);
    expect(store.size).toBe(0);
    await cache.close();
  });

  it('a circular value is a TypeError that says "circular" and where, not a stack overflow', async () => {
    const { store, cache } = setup();
    const failure = cache.set('order:1', circular());
    await expect(failure).rejects.toBeInstanceOf(TypeError);
    await expect(cache.set('order:1', circular())).rejects.toThrow(/with (auto \(cbor for this value\)|cbor|json|custom): it is circular: value\.lines\[0\]\.order refers back to value$/);
    await expect(cache.set('order:1', circular())).rejects.not.toThrow(/Maximum call stack/);
    expect(store.size).toBe(0);
    await cache.close();
  });
});

describe('what is refused and what is not', () => {
  it('names the serializer the user chose, and the one it picked for the value', async () => {
    const cache = createCache({ store: memoryStore(), logger: false });
    await expect(cache.set('k', circular())).rejects.toThrow('with auto (cbor for this value): it is circular');
    await expect(cache.set('k', { at: new Date(), pending: Promise.resolve() })).rejects.toThrow('with auto (cbor for this value): value.pending is a Promise');
    await cache.close();
  });

  it('raw refuses a Promise as the value with the same words', async () => {
    const cache = createCache({ store: memoryStore(), serializer: 'raw', logger: false });
    await expect(cache.set('k', Promise.resolve(new Uint8Array(1)))).rejects.toThrow('cannot encode the value for key "k" with raw: value is a Promise');
    await cache.close();
  });

  it('a custom serializer that can write a cycle is let write it; shared (not circular) references are fine', async () => {
    const store = memoryStore();
    const cache = createCache({ store, serializer: keysOnly, logger: false });
    expect(await cache.set('k', circular())).toBe(true);
    expect(await cache.get('k')).toBe('id,lines');
    const shared = { name: 'Ada' };
    const plain = createCache({ store, namespace: 'plain', serializer: 'cbor', logger: false });
    expect(await plain.set('pair', { a: shared, b: shared, list: [shared, shared] })).toBe(true);
    expect(await plain.get('pair')).toEqual({ a: shared, b: shared, list: [shared, shared] });
    await plain.close();
  });

  it('findUnstorable walks what serializers encode, and not byte arrays or Dates', () => {
    expect(findUnstorable({ bytes: new Uint8Array(8), at: new Date(), set: new Set([1, { ok: true }]), deep: { a: [{ b: 'c' }] } })).toBeUndefined();
    expect(findUnstorable({ 'odd key': { list: new Set([0, Promise.resolve()]) } })).toEqual({ thenable: 'value["odd key"].list.<Set item 1>', cycle: undefined });
    const self: unknown[] = [];
    self.push(self);
    expect(findUnstorable(self)).toEqual({ cycle: { at: 'value[0]', target: 'value' } });
  });
});
