import { describe, expect, it } from 'vitest';
import { MemoryStore, memoryStore } from '../../adapters/memory/index.ts';
import { decompress } from '../../src/codec/compression.ts';
import { CorruptEntryError, decodeEnvelope, encodeEnvelope, encodeTextEnvelope, TextEnvelope } from '../../src/codec/envelope.ts';
import { MAGIC, staledEnvelope, VERSION } from '../../src/store/layout/envelope.ts';
import { createCache, ValueTooLargeError } from '../../src/index.ts';
import { utf8BytesAfter } from '../../src/util/bytes.ts';

const base = { serializerId: 1, compressionId: 0, createdAt: 1_700_000_000_000, freshFor: 1000, staleFor: 500, payload: new Uint8Array([1, 2, 3]) };

describe('entry envelope', () => {
  it('round-trips every field, tags with their generations included', () => {
    const env = {
      ...base,
      tags: [
        { tag: 'user:1', generation: 7 },
        { tag: 'é', generation: 0 },
      ],
    };
    const bytes = encodeEnvelope(env);
    expect(bytes[0]).toBe(MAGIC);
    expect(bytes[1]).toBe(VERSION);
    expect(decodeEnvelope(bytes)).toEqual({ ...env, size: 3, stamp: expect.any(Number) });
  });

  it('staledEnvelope rewrites a copy, never the bytes it was given (a Buffer included, whose slice is a view)', () => {
    const stored = Buffer.from(encodeEnvelope({ ...base, createdAt: 1000, freshFor: 60_000, tags: [] }));
    const before = Buffer.from(stored);
    const staled = staledEnvelope(stored, 2000);
    expect(decodeEnvelope(staled!.bytes)).toMatchObject({ createdAt: 1000, freshFor: 1000 });
    expect(stored.equals(before)).toBe(true);
  });

  it('reads and writes the bytes cachette wrote before the layout moved to src/store/layout/ (version 2, compressed flag, tags)', () => {
    // Written by the encoder of d9a14e5 (src/codec/envelope.ts, before the layout had a folder), and staled by its staledEnvelope.
    const written = new Uint8Array(Buffer.from('ca02124278bcfe5680080040ed4c00000000007ff000000000000000000007deadbeef00020006757365723a3141f00000005000000002c3a90000000000000000010203', 'hex'));
    const staled = Buffer.from('ca02124278bcfe5680080040dd4be0000000007ff000000000000000000007deadbeef00020006757365723a3141f00000005000000002c3a90000000000000000010203', 'hex');
    const fields = {
      serializerId: 2,
      compressionId: 1,
      createdAt: 1_700_000_000_000.5,
      freshFor: 60_000,
      staleFor: Infinity,
      size: 7,
      stamp: 0xdeadbeef,
      tags: [
        { tag: 'user:1', generation: 4294967301 },
        { tag: 'é', generation: 0 },
      ],
    };
    expect(decodeEnvelope(written)).toEqual({ ...fields, payload: new Uint8Array([1, 2, 3]) });
    expect(encodeEnvelope({ ...fields, payload: new Uint8Array([1, 2, 3]) })).toEqual(written);
    const again = staledEnvelope(written, 1_700_000_030_000);
    expect(Buffer.from(again!.bytes).equals(staled)).toBe(true);
    expect(again!.ttlMs).toBeUndefined();
  });

  it('stamps every write differently, so two writes of one millisecond are told apart', () => {
    const stamps = new Set(Array.from({ length: 100 }, () => decodeEnvelope(encodeEnvelope({ ...base, tags: [] })).stamp));
    expect(stamps.size).toBeGreaterThan(95);
  });

  it('reads an uncompressed version 1 entry (cachette 0.1), and refuses a compressed one', () => {
    const v1 = (compressionId: number) => {
      const b = new Uint8Array(29 + 3);
      const view = new DataView(b.buffer);
      b[0] = MAGIC;
      b[1] = 1;
      b[2] = 1 | (compressionId << 4);
      view.setFloat64(3, base.createdAt);
      view.setFloat64(11, 1000);
      view.setFloat64(19, 0);
      b.set([1, 2, 3], 29);
      return b;
    };
    expect(decodeEnvelope(v1(0))).toMatchObject({ size: 3, stamp: 0, payload: new Uint8Array([1, 2, 3]) });
    expect(() => decodeEnvelope(v1(1))).toThrow(CorruptEntryError);
  });

  it('cannot be mistaken for a decimal counter', () => {
    const first = String.fromCharCode(encodeEnvelope({ ...base, tags: [] })[0]!);
    expect(/[-0-9]/.test(first)).toBe(false);
  });

  it.each([
    ['empty', new Uint8Array(0)],
    ['a decimal counter', new TextEncoder().encode('12345678901234567890123456789012')],
    [
      'an unknown version',
      (() => {
        const b = encodeEnvelope({ ...base, tags: [] });
        b[1] = 99;
        return b;
      })(),
    ],
    ['a truncated header', encodeEnvelope({ ...base, tags: [] }).subarray(0, 20)],
    ['a truncated tag list', encodeEnvelope({ ...base, tags: [{ tag: 'abcdef', generation: 1 }] }).subarray(0, 33)],
    ['a size that disagrees with an uncompressed payload', encodeEnvelope({ ...base, size: 99, tags: [] })],
    [
      'negative offsets',
      (() => {
        const b = encodeEnvelope({ ...base, tags: [] });
        new DataView(b.buffer, b.byteOffset, b.byteLength).setFloat64(11, -1);
        return b;
      })(),
    ],
  ])('rejects %s with CorruptEntryError', (_, bytes) => {
    expect(() => decodeEnvelope(bytes)).toThrow(CorruptEntryError);
  });
});

describe('text payloads written straight into the envelope', () => {
  const texts = {
    empty: '',
    ascii: '{"id":7,"name":"User number 7"}',
    'non-ASCII': '{"name":"Zoë 🙂 日本"}',
    'long ASCII (beyond the slabs)': 'x'.repeat(9000),
    'long non-ASCII (beyond the slabs)': 'é🙂'.repeat(3000),
    'short ASCII then non-ASCII at the end': `${'a'.repeat(100)}é`,
  };

  it.each(Object.entries(texts))('%s: the same envelope as with a payload buffer, stamp aside', (_, text) => {
    const header = { ...base, tags: [{ tag: 'users', generation: 3 }], stamp: 42 };
    const payload = new TextEncoder().encode(text);
    const direct = encodeTextEnvelope(header, text);
    expect([...direct]).toEqual([...encodeEnvelope({ ...header, payload })]);
    expect(decodeEnvelope(direct)).toMatchObject({ size: payload.length, payload });
  });

  it.each(Object.entries(texts))('%s: utf8BytesAfter leaves the head and holds exactly the text', (_, text) => {
    const out = utf8BytesAfter(5, text);
    expect(out.length).toBe(5 + new TextEncoder().encode(text).length);
    expect(new TextDecoder().decode(out.subarray(5))).toBe(text);
    // The next buffer carved from the same slab does not overlap this one.
    const next = utf8BytesAfter(0, 'zzzz');
    expect(new TextDecoder().decode(out.subarray(5))).toBe(text);
    expect(new TextDecoder().decode(next)).toBe('zzzz');
  });

  it.each(Object.entries(texts))('%s: kept as a header and its text, the same bytes wherever they are written', (_, text) => {
    const header = {
      ...base,
      tags: [
        { tag: 'users', generation: 3 },
        { tag: 'é', generation: 0 },
      ],
      stamp: 42,
    };
    const parts = new TextEnvelope(header, text);
    const direct = encodeTextEnvelope(header, text);
    expect(parts.headLength).toBe(direct.length - new TextEncoder().encode(text).length);
    // Written in place, as the valkey encoder does: the text at an offset of a larger buffer, then the head before it.
    const textBytes = Buffer.byteLength(text, 'utf8');
    const out = Buffer.alloc(3 + parts.headLength + textBytes + 2, 0xee);
    out.write(parts.text, 3 + parts.headLength, 'utf8');
    parts.writeHead(out, 3, textBytes);
    expect([...out.subarray(3, out.length - 2)]).toEqual([...direct]);
    expect([...out.subarray(0, 3), ...out.subarray(out.length - 2)]).toEqual([0xee, 0xee, 0xee, 0xee, 0xee]);
    // Exact once written, before its bytes were made.
    expect(parts.size).toBe(direct.length);
    expect([...parts.bytes()]).toEqual([...direct]);
    expect(parts.bytes()).toBe(parts.bytes());
    expect(parts.size).toBe(direct.length);
  });

  it('a text envelope without a stamp draws one once: its bytes and its head written in place agree', () => {
    const parts = new TextEnvelope({ ...base, tags: [] }, '"x"');
    const head = new Uint8Array(parts.headLength);
    parts.writeHead(head, 0, 3);
    expect([...parts.bytes().subarray(0, parts.headLength)]).toEqual([...head]);
    expect(decodeEnvelope(parts.bytes())).toMatchObject({ size: 3, payload: new TextEncoder().encode('"x"') });
  });

  it('compresses or refuses text by its UTF-8 size, not its length', async () => {
    const store = memoryStore();
    const cache = createCache({ store, serializer: 'json', compression: { threshold: 100 }, maxValueBytes: 400, closeStore: false });
    const wide = '🙂'.repeat(40); // 80 code units, 160 bytes: above the threshold
    expect(await cache.set('wide', wide)).toBe(true);
    expect(decodeEnvelope((await store.get('cachette:wide'))!).compressionId).toBe(1);
    expect(await cache.get('wide')).toBe(wide);
    expect(await cache.set('fits', 'é'.repeat(150))).toBe(true); // 152 units, 302 bytes with the quotes: within the limit
    expect(await cache.set('too-wide', 'é'.repeat(250))).toBe(false); // 502 bytes: above maxValueBytes
    expect(cache.stats().tooLarge).toBe(1);
  });
});

describe('serializers and compression', () => {
  it('compresses a large compressible value and records it in the flags', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c', compression: true });
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}`, active: true }));
    await cache.set('rows', rows);
    const env = decodeEnvelope((await store.get('c:rows'))!);
    expect(env.compressionId).toBe(1);
    expect(decompress(env.payload, env.compressionId, env.size).length).toBeGreaterThan(env.payload.length * 2);
    expect(await cache.get('rows')).toEqual(rows);
  });

  it('leaves small and incompressible values uncompressed', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'c', serializer: 'raw', compression: true });
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
    [
      'json',
      'a cyclic object',
      (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    ],
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

describe('the default serializer ("auto")', () => {
  const store = memoryStore();
  const cache = createCache({ store, prefix: 'auto' });
  const idOf = async (key: string) => decodeEnvelope((await store.get(`auto:${key}`))!).serializerId;

  it('writes plain JSON values as JSON (id 2)', async () => {
    const value = { id: 7, name: 'é ü 𝄞', tags: ['a', 'b'], nested: { n: null, f: 1.5, t: true } };
    await cache.set('plain', value);
    expect(await idOf('plain')).toBe(2);
    expect(await cache.get('plain')).toEqual(value);
  });

  it.each([
    ['a Date', { at: new Date(1_700_000_000_000) }],
    ['a Map', { m: new Map([[1, 'a']]) }],
    ['a Set', new Set(['x'])],
    ['a BigInt', { big: 2n ** 70n }],
    ['a typed array', { bytes: new Uint8Array([0, 255]) }],
    ['undefined in an object', { gone: undefined, kept: 1 }],
    ['a hole in an array', [1, undefined, 3]],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Infinity]],
  ])('writes %s as CBOR (id 1), which gives it back exactly', async (_, value) => {
    await cache.set('rich', value);
    expect(await idOf('rich')).toBe(1);
    expect(await cache.get('rich')).toEqual(value);
  });

  it('hands an object with a toJSON to CBOR, which keeps its fields instead of its JSON form', async () => {
    const value = { a: 1, toJSON: () => 'replaced' };
    await expect(cache.set('tojson', value)).rejects.toThrow(TypeError); // a function cannot be encoded: said, not lost
  });

  it('refuses a cyclic value with a TypeError naming the key', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(cache.set('cyclic', cyclic)).rejects.toThrow(/cannot encode the value for key "cyclic"/);
  });
});

describe('compression defaults and limits', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `user ${i}`, active: true }));

  it('follows the store: never for process memory unless asked', async () => {
    const store = memoryStore();
    await createCache({ store, prefix: 'm' }).set('rows', rows);
    expect(decodeEnvelope((await store.get('m:rows'))!).compressionId).toBe(0);
  });

  it('compresses from the threshold the store declares', async () => {
    const store = new (class extends MemoryStore {
      readonly compressionThreshold = 32 * 1024;
    })();
    const memory = store;
    const cache = createCache({ store, prefix: 't' });
    await cache.set('big', rows); // ~60 KB of JSON
    await cache.set('small', rows.slice(0, 200)); // ~6 KB
    expect(decodeEnvelope((await memory.get('t:big'))!).compressionId).toBe(1);
    expect(decodeEnvelope((await memory.get('t:small'))!).compressionId).toBe(0);
    expect(await cache.get('big')).toEqual(rows);
  });

  it('refuses to inflate an entry that declares more than maxValueBytes: a corrupt miss', async () => {
    const store = memoryStore();
    const writer = createCache({ store, prefix: 'b', compression: true });
    const reader = createCache({ store, prefix: 'b', maxValueBytes: 1024 });
    await writer.set('bomb', 'a'.repeat(1_000_000)); // ~1 KB stored, 1 MB inflated
    expect((await store.get('b:bomb'))!.length).toBeLessThan(5000);
    expect(await reader.get('bomb')).toBeUndefined();
    expect(reader.stats().corrupt).toBe(1);
  });

  it('stops inflating an entry that lies about its size: a corrupt miss', async () => {
    const store = memoryStore();
    const writer = createCache({ store, prefix: 'l', compression: true });
    await writer.set('liar', 'a'.repeat(1_000_000));
    const stored = (await store.get('l:liar'))!.slice();
    new DataView(stored.buffer).setUint32(27, 100); // claims 100 bytes
    await store.set('l:liar', stored);
    const reader = createCache({ store, prefix: 'l' });
    expect(await reader.get('liar')).toBeUndefined();
    expect(reader.stats().corrupt).toBe(1);
  });

  it('serves a value above maxValueBytes without storing it, and says so', async () => {
    const store = memoryStore();
    const cache = createCache({ store, prefix: 'x', maxValueBytes: 100 });
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (e) => errors.push(e.detail.error));
    expect(await cache.set('big', 'z'.repeat(500))).toBe(false);
    expect(await cache.getOrSet('big', () => 'z'.repeat(500))).toBe('z'.repeat(500));
    await cache.idle();
    expect(store.size).toBe(0);
    expect(cache.stats().tooLarge).toBe(2);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(ValueTooLargeError);
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
    ['a ttl of 0', { store, ttl: 0 }, /ttl must be greater than 0/],
    ['a ttl too large for any store', { store, ttl: 1e308 }, /too large for any store; use Infinity/],
    ['a misspelt option', { store, tll: '1m' }, /unknown option "tll" \(did you mean "ttl"\?\)/],
    ['a misspelt breaker option', { store, circuitBreaker: { treshold: 3 } }, /unknown option "treshold" \(did you mean "threshold"\?\)/],
    ['a logger without warn', { store, logger: { info() {} } }, /logger/],
  ])('%s is a clear error', (_, options, message) => {
    expect(() => createCache(options as never)).toThrow(message);
  });

  it('accepts durations as strings', async () => {
    const cache = createCache({ store, ttl: '2s', grace: '1m', timeout: '250ms' });
    await cache.set('d', 1);
    expect(await cache.get('d')).toBe(1);
  });

  it('checks per-call options before any side effect: the factory never runs', async () => {
    const cache = createCache({ store });
    let ran = 0;
    await expect(cache.getOrSet('v', () => ++ran, { ttl: -5 })).rejects.toThrow(RangeError);
    await expect(cache.getOrSet('v', () => ++ran, { ttl: 1e308 })).rejects.toThrow(/too large/);
    await expect(cache.getOrSet('v', () => ++ran, { ttl: 0 })).rejects.toThrow(/would store nothing/);
    await expect(cache.set('v', 1, { ttl: 0, grace: 0 })).rejects.toThrow(/would store nothing/);
    expect(ran).toBe(0);
    expect(await cache.set('v', 1, { ttl: 0, grace: '1m' })).toBe(true); // stale at once, kept for revalidation
  });

  it('rejects an empty key', async () => {
    const cache = createCache({ store });
    await expect(cache.get('')).rejects.toThrow(TypeError);
  });
});
