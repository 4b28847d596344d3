import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache, type CacheOptions } from '../../src/index.ts';
import { withCache } from '../../src/http/index.ts';
import type { CacheEventMap } from '../../src/cache/events.ts';
import type { Store } from '../../src/store/types.ts';
import { SEALED_FLAGS } from '../../src/cache/encryption/sealed-envelope.ts';
import { FLAGS_OFFSET } from '../../src/store/layout/envelope.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];
const keyA = crypto.getRandomValues(new Uint8Array(32));
const keyB = crypto.getRandomValues(new Uint8Array(32));
const text = new TextDecoder();

describe.each(targets)('encryption at rest on $name', ({ open }) => {
  let store: Store;
  const clock = new FakeClock();
  const caches: Cache[] = [];
  const prefix = uniqueNamespace('enc');
  /** A cache over the shared store, every one under the same prefix (so they read each other's entries). */
  const cacheWith = (options: Partial<CacheOptions>): Cache => {
    const cache = createCache({ store, prefix, clock, closeStore: false, logger: false, ttl: '1h', ...options });
    caches.push(cache);
    return cache;
  };
  /** The reasons of the corrupt events `cache` reports from now on. */
  const corruptReasons = (cache: Cache): string[] => {
    const reasons: string[] = [];
    cache.events.addEventListener('corrupt', (event) => reasons.push((event as CustomEvent<CacheEventMap['corrupt']>).detail.reason));
    return reasons;
  };
  beforeAll(() => {
    store = open();
  });
  afterAll(async () => {
    for (const cache of caches) await cache.close();
    await store.close();
  });

  it('stores every value path sealed (no plaintext, its own IV per write) and reads it back', async () => {
    const cache = cacheWith({ encryption: { keys: { a: keyA }, current: 'a' } });
    const secret = { card: 'secret-4111-1111', list: ['x'.repeat(40)] };
    await cache.set('one', secret, { tags: ['t'] });
    await cache.setMany<unknown>([
      { key: 'two', value: 'secret-two' },
      { key: 'three', value: new Uint8Array([1, 2, 3]) },
    ]);
    expect(await cache.getOrSet('four', () => 'secret-four')).toBe('secret-four');
    await cache.idle();
    const first = await store.get(`${prefix}:one`);
    expect(first).toBeDefined();
    for (const key of ['one', 'two', 'three', 'four']) {
      const stored = (await store.get(`${prefix}:${key}`))!;
      expect(stored[FLAGS_OFFSET]).toBe(SEALED_FLAGS);
      expect(text.decode(stored)).not.toContain('secret');
    }
    // The tag name stays readable in the header (docs/cache.md says so).
    expect(text.decode(first!)).toContain('t');
    await cache.set('one', secret, { tags: ['t'] });
    expect(Buffer.from((await store.get(`${prefix}:one`))!).equals(Buffer.from(first!))).toBe(false);
    expect(await cache.get('one')).toEqual(secret);
    expect(await cache.getMany(['two', 'three', 'missing'])).toEqual(['secret-two', new Uint8Array([1, 2, 3]), undefined]);
    await cache.invalidateTags(['t']);
    expect(await cache.get('one')).toBeUndefined();
    expect(cache.stats().corrupt).toBe(0);
  });

  it('seals HTTP responses: neither the body nor the stored headers reach the store in the clear, and the hit reads them back', async () => {
    const cache = cacheWith({ encryption: { keys: { a: keyA }, current: 'a' } });
    const handler = withCache(async () => new Response('secret-body', { headers: { 'cache-control': 'max-age=600', 'x-secret': 'secret-header' } }), { cache });
    const request = () => new Request('http://encrypted.test/page');
    expect(await (await handler(request())).text()).toBe('secret-body');
    await handler.idle();
    const hit = await handler(request());
    expect(hit.headers.get('cache-status')).toMatch(/hit/);
    expect([await hit.text(), hit.headers.get('x-secret')]).toEqual(['secret-body', 'secret-header']);
    const stored: Uint8Array[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.keys!(`${prefix}:`, cursor);
      // A key listed may be gone by its read (a fill lease released): only what is there counts.
      for (const bytes of await store.getMany(page.keys)) if (bytes) stored.push(bytes);
      cursor = page.cursor;
    } while (cursor !== undefined);
    const sealed = stored.filter((bytes) => bytes[FLAGS_OFFSET] === SEALED_FLAGS);
    expect(sealed.length).toBeGreaterThan(0);
    for (const bytes of stored) expect(text.decode(bytes)).not.toContain('secret-');
  });

  it('reads values sealed under any listed key, writes under current, and counts an unlisted or wrong key as a miss', async () => {
    const old = cacheWith({ encryption: { keys: { a: keyA }, current: 'a' } });
    const rotating = cacheWith({ encryption: { keys: { a: keyA, b: keyB }, current: 'b' } });
    const rotated = cacheWith({ encryption: { keys: { b: keyB }, current: 'b' } });
    const wrong = cacheWith({ encryption: { keys: { a: keyB }, current: 'a' } });
    await old.set('rot', 'written under a');
    expect(await rotating.get('rot')).toBe('written under a');
    const unlisted = corruptReasons(rotated);
    expect(await rotated.get('rot')).toBeUndefined();
    expect(rotated.stats().corrupt).toBe(1);
    expect(unlisted).toEqual([expect.stringContaining('key id "a", which "encryption.keys" does not list')]);
    const mismatched = corruptReasons(wrong);
    expect(await wrong.get('rot')).toBeUndefined();
    expect(wrong.stats().corrupt).toBe(1);
    expect(mismatched).toEqual([expect.stringContaining('authentication failed')]);
    // A miss the caller fills: the value is written again under the current key, and every cache listing it reads it.
    expect(await rotated.getOrSet('rot', () => 'written under b')).toBe('written under b');
    await rotated.idle();
    expect(await rotating.get('rot')).toBe('written under b');
    expect(await old.get('rot')).toBeUndefined();
    expect(old.stats().corrupt).toBe(1);
  });

  it('refuses an entry whose bytes were copied under another key name, and one stored unencrypted', async () => {
    const cache = cacheWith({ encryption: { keys: { a: keyA }, current: 'a' } });
    const plain = cacheWith({});
    const reasons = corruptReasons(cache);
    await cache.set('original', 'the original');
    await store.set(`${prefix}:copy`, (await store.get(`${prefix}:original`))!);
    expect(await cache.get('copy')).toBeUndefined();
    await plain.set('plain', 'stored in the clear');
    expect(await cache.get('plain')).toBeUndefined();
    expect(cache.stats().corrupt).toBe(2);
    expect(reasons).toEqual([expect.stringContaining('authentication failed'), expect.stringContaining('not encrypted')]);
    // A cache without the keys sees a corrupt miss too, never the ciphertext as a value.
    expect(await plain.get('original')).toBeUndefined();
    expect(plain.stats().corrupt).toBe(1);
  });

  it('keeps the times outside the authenticated data: an expired entry is served in its grace', async () => {
    const cache = cacheWith({ encryption: { keys: { a: keyA }, current: 'a' }, grace: '1h' });
    await cache.set('aging', 'still here');
    await cache.expire('aging');
    let calls = 0;
    expect(await cache.getOrSet('aging', () => `recomputed ${++calls}`)).toBe('still here');
    expect(await cache.inspect('aging')).toMatchObject({ state: 'stale' });
    expect(cache.stats().corrupt).toBe(0);
  });

  it('serves a strict L1 copy confirmed by its stored prefix, and sees another cache write', async () => {
    const options = { encryption: { keys: { a: keyA }, current: 'a' }, l1: { consistency: 'strict' } } as const;
    const reader = cacheWith(options);
    const writer = cacheWith(options);
    await writer.set('copy-me', 'v1');
    expect(await reader.get('copy-me')).toBe('v1');
    const read = reader.stats().bytesRead;
    expect(await reader.get('copy-me')).toBe('v1');
    // Confirmed by its prefix: the value's bytes were not sent again.
    expect(reader.stats().bytesRead).toBe(read);
    await writer.set('copy-me', 'v2');
    expect(await reader.get('copy-me')).toBe('v2');
    expect(reader.stats().corrupt).toBe(0);
  });
});

describe('the encryption option', () => {
  const make = (encryption: unknown) => () => createCache({ store: memoryStore(), logger: false, encryption } as CacheOptions);
  it('refuses keys that are not 32 bytes, not Uint8Array, a current key not listed, and no keys', () => {
    expect(make({ keys: { a: new Uint8Array(16) }, current: 'a' })).toThrow(/"encryption.keys.a" must be 32 bytes \(AES-256\), got 16/);
    expect(make({ keys: { a: 'x'.repeat(32) }, current: 'a' })).toThrow(/"encryption.keys.a" must be a Uint8Array of 32 bytes, got string/);
    expect(make({ keys: { a: keyA }, current: 'b' })).toThrow(/"encryption.current" "b" is not among "encryption.keys" \("a"\)/);
    expect(make({ keys: { a: keyA } })).toThrow(/"encryption.current" must be the id/);
    expect(make({ current: 'a' })).toThrow(/"encryption.keys" must be an object/);
    expect(make('key')).toThrow(/"encryption" must be an object/);
    expect(make({ keys: { ['k'.repeat(256)]: keyA }, current: 'k' })).toThrow(/id must be 1 to 255 bytes/);
  });
});
