import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { decompress } from '../../src/codec/compression.ts';
import { createCache, CorruptEntryError, decodeEnvelope, encodeEnvelope, MAGIC, VERSION } from '../../src/index.ts';

const base = { serializerId: 1, compressionId: 0, createdAt: 1_700_000_000_000, freshFor: 1000, staleFor: 500, payload: new Uint8Array([1, 2, 3]) };

describe('entry envelope', () => {
  it('round-trips every field, tags with their generations included', () => {
    const env = { ...base, tags: [{ tag: 'user:1', generation: 7 }, { tag: 'é', generation: 0 }] };
    const bytes = encodeEnvelope(env);
    expect(bytes[0]).toBe(MAGIC);
    expect(bytes[1]).toBe(VERSION);
    expect(decodeEnvelope(bytes)).toEqual(env);
  });

  it('cannot be mistaken for a decimal counter', () => {
    const first = String.fromCharCode(encodeEnvelope({ ...base, tags: [] })[0]!);
    expect(/[-0-9]/.test(first)).toBe(false);
  });

  it.each([
    ['empty', new Uint8Array(0)],
    ['a decimal counter', new TextEncoder().encode('12345678901234567890123456789012')],
    ['an unknown version', (() => { const b = encodeEnvelope({ ...base, tags: [] }); b[1] = 99; return b; })()],
    ['a truncated header', encodeEnvelope({ ...base, tags: [] }).subarray(0, 20)],
    ['a truncated tag list', encodeEnvelope({ ...base, tags: [{ tag: 'abcdef', generation: 1 }] }).subarray(0, 33)],
    ['negative offsets', (() => { const b = encodeEnvelope({ ...base, tags: [] }); new DataView(b.buffer, b.byteOffset, b.byteLength).setFloat64(11, -1); return b; })()],
  ])('rejects %s with CorruptEntryError', (_, bytes) => {
    expect(() => decodeEnvelope(bytes)).toThrow(CorruptEntryError);
  });
});

describe('serializers and compression', () => {
  it('compresses a large compressible value and records it in the flags', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c' });
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}`, active: true }));
    await cache.set('rows', rows);
    const env = decodeEnvelope((await store.get('c:rows'))!);
    expect(env.compressionId).toBe(1);
    expect(decompress(env.payload, env.compressionId).length).toBeGreaterThan(env.payload.length * 2);
    expect(await cache.get('rows')).toEqual(rows);
  });

  it('leaves small and incompressible values uncompressed', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c', serializer: 'raw' });
    const noise = crypto.getRandomValues(new Uint8Array(4096));
    await cache.set('noise', noise);
    await cache.set('small', 'tiny');
    expect(decodeEnvelope((await store.get('c:noise'))!).compressionId).toBe(0);
    expect(decodeEnvelope((await store.get('c:small'))!).compressionId).toBe(0);
    expect(await cache.get('noise')).toEqual(noise);
    expect(await cache.get('small')).toBe('tiny');
  });

  it('never compresses with compression: false', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c', compression: false });
    await cache.set('big', 'a'.repeat(10_000));
    expect(decodeEnvelope((await store.get('c:big'))!).compressionId).toBe(0);
  });

  it('reads entries written with another serializer (the flags say which)', async () => {
    const store = memoryStore();
    await createCache({ store, prefix: 'c', serializer: 'json' }).set('j', { a: [1, 'x'] });
    expect(await createCache({ store, prefix: 'c' }).get('j')).toEqual({ a: [1, 'x'] });
  });

  it.each([
    ['cbor', 'a function', { f: () => 1 }],
    ['json', 'a cyclic object', (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })()],
    ['json', 'a BigInt', 10n],
    ['json', 'undefined', undefined],
    ['raw', 'an object', { a: 1 }],
  ] as const)('%s: encoding %s is a TypeError naming the key, and nothing is stored', async (serializer, _, value) => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c', serializer });
    await expect(cache.set('bad-key', value)).rejects.toThrow(/cannot encode the value for key "bad-key"/);
    await expect(cache.set('bad-key', value)).rejects.toBeInstanceOf(TypeError);
    await expect(cache.getOrSet('bad-key', () => value)).rejects.toBeInstanceOf(TypeError);
    expect(store.size).toBe(0);
  });
});

describe('options', () => {
  const store = memoryStore();
  it.each([
    ['no store', {}, /store/],
    ['a store missing methods', { store: { get() {} } }, /lacks the "getMany" method/],
    ['a negative ttl', { store, ttl: -1 }, /ttl must be/],
    ['an unparsable ttl', { store, ttl: '10 parsecs' }, /ttl must be/],
    ['a zero timeout', { store, timeout: 0 }, /timeout/],
    ['an unknown serializer', { store, serializer: 'yaml' }, /unknown serializer/],
    ['a bad compression level', { store, compression: { level: 12 } }, /compression.level/],
    ['a bad breaker threshold', { store, circuitBreaker: { threshold: 0 } }, /threshold/],
  ])('%s is a clear error', (_, options, message) => {
    expect(() => createCache(options as never)).toThrow(message);
  });

  it('accepts durations as strings', async () => {
    const cache = createCache({ store, ttl: '2s', grace: '1m', timeout: '250ms' });
    await cache.set('d', 1);
    expect(await cache.get('d')).toBe(1);
  });

  it('rejects an empty key', async () => {
    const cache = createCache({ store });
    await expect(cache.get('')).rejects.toThrow(TypeError);
  });
});
