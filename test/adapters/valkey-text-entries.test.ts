/**
 * set's and setMany's text envelopes on the valkey store (issue 34, the write phases): an entry
 * whose value is text reaches the store as a TextEntry, its header and text written straight
 * into the command encoder, never made into bytes of their own first. On a real redis-server,
 * the bytes stored are the envelope's own, beside plain entries, with and without expiry.
 */
import Valkey from 'iovalkey';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { decodeEnvelope, encodeTextEnvelope, TextEnvelope } from '../../src/codec/envelope.ts';
import { createCache } from '../../src/index.ts';
import { TextEntry } from '../../src/store/text-entry.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

describe.runIf(requireRedis())('valkey store: text entries written from their parts', () => {
  const admin = new Valkey(redisUrl!);
  const prefix = `text-entries-${Date.now().toString(36)}`;
  afterAll(async () => {
    const keys = await admin.keys(`*${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  });

  it('stores the bytes of each text envelope (never made before it is sent), in order with plain entries, each with its own expiry', async () => {
    const header = { serializerId: 2, compressionId: 0, createdAt: 1_700_000_000_000, freshFor: 60_000, staleFor: 1000, tags: [{ tag: 'users', generation: 3 }], stamp: 7 };
    const texts = ['{"id":1}', 'x'.repeat(9000), ''];
    /** A text envelope whose bytes() fails the test: the store must write its parts. */
    const unmade = (text: string) => {
      const parts = new TextEnvelope(header, text);
      return Object.assign(Object.create(parts) as typeof parts, {
        bytes: () => {
          throw new Error('the store made the bytes of a text entry');
        },
        writeHead: (out: Uint8Array, at: number, textBytes: number) => parts.writeHead(out, at, textBytes),
      });
    };
    const store = valkeyStore(redisUrl!);
    try {
      await store.setMany([
        new TextEntry(`${prefix}:a`, unmade(texts[0]!), undefined),
        { key: `${prefix}:plain`, value: new Uint8Array([0, 13, 10, 255]) },
        new TextEntry(`${prefix}:b`, unmade(texts[1]!), 60_000),
        new TextEntry(`${prefix}:c`, unmade(texts[2]!), undefined),
        // Not ASCII: written from its parts too.
        new TextEntry(`${prefix}:wide`, unmade('"Zoë 🙂"'), 60_000),
      ]);
      expect(Buffer.from((await store.get(`${prefix}:wide`))!).equals(encodeTextEnvelope(header, '"Zoë 🙂"'))).toBe(true);
      const stored = await store.getMany([`${prefix}:a`, `${prefix}:b`, `${prefix}:c`]);
      expect(stored.map((bytes) => Buffer.from(bytes!).toString('hex'))).toEqual(texts.map((text) => Buffer.from(encodeTextEnvelope(header, text)).toString('hex')));
      expect([...(await store.get(`${prefix}:plain`))!]).toEqual([0, 13, 10, 255]);
      const ttls = await Promise.all([`${prefix}:a`, `${prefix}:b`].map((key) => admin.pttl(key)));
      expect(ttls[0]).toBe(-1);
      expect(ttls[1]).toBeGreaterThan(50_000);
    } finally {
      await store.close();
    }
  });

  it('a cache setMany of ASCII and non-ASCII values reads back every one, and stores one envelope per key', async () => {
    const store = valkeyStore(redisUrl!);
    const cache = createCache({ store, namespace: prefix });
    try {
      const values: Array<[string, unknown]> = [
        ['ascii', { id: 1, name: 'plain' }],
        ['wide', { name: 'Zoë 🙂' }],
        ['text', 'a string'],
        ['date', new Date(0)],
      ];
      expect(await cache.setMany(values.map(([key, value]) => ({ key, value, ttl: '1m' })))).toBe(true);
      expect(await cache.getMany(values.map(([key]) => key))).toEqual(values.map(([, value]) => value));
      const [full] = await admin.keys(`*${prefix}*ascii`);
      const raw = await admin.getBuffer(full!);
      expect(JSON.parse(Buffer.from(decodeEnvelope(raw!).payload).toString())).toEqual({ id: 1, name: 'plain' });
    } finally {
      await cache.close();
    }
  });
  it('a cache set writes each text envelope from its parts, storing the bytes the bytes path stores; other values as before', async () => {
    // The same clock and stamps on both sides: the memory store takes every entry as bytes (no setEntry).
    const clock = { now: () => 1_700_000_000_000 };
    let draws = 0;
    const random = vi.spyOn(Math, 'random').mockImplementation(() => (draws++ * 0.137) % 1);
    const writeHead = vi.spyOn(TextEnvelope.prototype, 'writeHead');
    const bytes = vi.spyOn(TextEnvelope.prototype, 'bytes');
    const memory = memoryStore();
    const valkey = valkeyStore(redisUrl!);
    const options = { namespace: `${prefix}-set`, clock, compression: { threshold: 2000 } } as const;
    const onValkey = createCache({ store: valkey, ...options });
    const onMemory = createCache({ store: memory, ...options });
    const values: Array<[string, unknown, readonly string[]]> = [
      ['json', { id: 1, name: 'plain' }, []],
      ['wide', { name: 'Zoë 🙂', more: '€'.repeat(40) }, []],
      ['text', 'a string', []],
      ['tagged', { id: 2 }, ['users']],
      // Not text: CBOR, and text compressed past the threshold.
      ['date', new Date(0), []],
      ['bytes', new Uint8Array([0, 13, 10, 255]), []],
      ['large', 'z'.repeat(5000), []],
    ];
    try {
      for (const cache of [onValkey, onMemory]) {
        draws = 0;
        for (const [key, value, tags] of values) expect(await cache.set(key, value, { ttl: '1m', tags })).toBe(true);
      }
      // Three untagged text values and the tagged one went to valkey from their parts; none was made into bytes.
      expect(writeHead).toHaveBeenCalledTimes(4);
      expect(bytes).not.toHaveBeenCalled();
      for (const [key, value] of values) {
        const [full, ...others] = await admin.keys(`*${prefix}-set*:${key}`);
        expect(others).toEqual([]);
        const stored = await admin.getBuffer(full!);
        const expected = Buffer.from((await memory.get(full!))!);
        // A tag's generation (the 8 bytes before the 8-byte payload) is each store's own counter: the rest is the same.
        if (key === 'tagged') expected.set(stored!.subarray(expected.length - 16, expected.length - 8), expected.length - 16);
        expect(stored!.toString('hex'), key).toBe(expected.toString('hex'));
        expect(await admin.pttl(full!)).toBeGreaterThan(50_000);
        expect(await onValkey.get(key)).toEqual(value);
      }
    } finally {
      random.mockRestore();
      writeHead.mockRestore();
      bytes.mockRestore();
      await onValkey.close();
      await onMemory.close();
    }
  });
});
