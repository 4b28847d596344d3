import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { encodeEnvelope } from '../../src/codec/envelope.ts';
import { HEADER_BYTES } from '../../src/store/layout/envelope.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { StoreTimeoutError, StoreUnavailableError } from '../../src/store/index.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { sleep } from '../support/suite-api.ts';
import { uniqueNamespace } from './targets.ts';
import { capturedLogger } from '../support/captured-logger.ts';

const errorsOf = (cache: Cache) => {
  const seen: Array<{ source: string; operation: string; error: unknown }> = [];
  cache.events.addEventListener('error', (e) => seen.push(e.detail));
  return seen;
};

describe.runIf(requireRedis())('unreadable entries planted in the server', () => {
  let raw: Valkey;
  let store: ValkeyStore;
  let cache: Cache;
  const ns = uniqueNamespace('corrupt');
  beforeAll(() => {
    raw = new Valkey(redisUrl!);
    store = valkeyStore(redisUrl!);
    cache = createCache({ store, prefix: 'cachette', namespace: ns });
  });
  afterAll(async () => {
    await cache.clear();
    await store.close();
    raw.disconnect();
  });

  const fields = { serializerId: 1, compressionId: 0, createdAt: Date.now(), freshFor: 60_000, staleFor: 0, tags: [], payload: new Uint8Array([0x63, 0x61, 0x62, 0x63]) };
  const good = encodeEnvelope(fields);
  const planted: Array<[string, Buffer]> = [
    ['garbage', Buffer.from('not an envelope at all')],
    ['a counter', Buffer.from('42')],
    ['an unknown version', Buffer.from(good.map((b, i) => (i === 1 ? 7 : b)))],
    ['a truncated entry', Buffer.from(good.subarray(0, 12))],
    ['a corrupt CBOR payload', Buffer.from(good.map((b, i) => (i === good.length - 4 ? 0xff : b)))],
    ['a corrupt deflate payload', Buffer.from(good.map((b, i) => (i === 2 ? 0x11 : b)))],
    ['an unknown serializer id', Buffer.from(good.map((b, i) => (i === 2 ? 0x0e : b)))],
    // JSON text whose bytes are not UTF-8 (a lone 0xff), and a tag name that is not either (its first byte,
    // after the tag count and the name's length, made 0xff).
    ['a JSON payload that is not UTF-8', Buffer.from(encodeEnvelope({ ...fields, serializerId: 2, payload: new Uint8Array([0x22, 0xff, 0x22]) }))],
    [
      'a tag name that is not UTF-8',
      Buffer.from(encodeEnvelope({ ...fields, serializerId: 2, payload: new TextEncoder().encode('1'), tags: [{ tag: 'ÿ', generation: 1 }] }).map((b, i) => (i === HEADER_BYTES + 4 ? 0xff : b))),
    ],
  ];

  it('control: the untouched planted entry reads back', async () => {
    await raw.set(`cachette:${ns}:control`, Buffer.from(good));
    expect(await cache.get('control')).toBe('abc');
  });

  it('control: JSON text holding U+FFFD itself (valid UTF-8) reads back', async () => {
    await raw.set(`cachette:${ns}:replacement`, Buffer.from(encodeEnvelope({ ...fields, serializerId: 2, payload: new TextEncoder().encode('"a\uFFFDb"') })));
    expect(await cache.get('replacement')).toBe('a\uFFFDb');
  });

  it.each(planted)('%s is a counted miss, not a throw', async (name, bytes) => {
    const key = `planted:${name}`;
    await raw.set(`cachette:${ns}:${key}`, bytes);
    const corrupt: string[] = [];
    const onCorrupt = (e: Event) => corrupt.push((e as CustomEvent<{ key: string }>).detail.key);
    cache.events.addEventListener('corrupt', onCorrupt);
    const before = cache.stats();
    expect(await cache.get(key)).toBeUndefined();
    expect(await cache.getMany([key])).toEqual([undefined]);
    cache.events.removeEventListener('corrupt', onCorrupt);
    expect(cache.stats().corrupt - before.corrupt).toBe(2);
    expect(corrupt).toEqual([key, key]);
    // getOrSet recomputes and overwrites the bad bytes.
    expect(await cache.getOrSet(key, () => 'repaired')).toBe('repaired');
    expect(await cache.get(key)).toBe('repaired');
  });
});

describe.runIf(requireRedis())('a redis-server that goes away mid-test', () => {
  let server: RedisServer;
  let store: ValkeyStore;
  let cache: Cache;
  beforeAll(async () => {
    server = await startRedis({ bin: process.env.REDIS_SERVER_BIN });
    store = valkeyStore(server.url);
    // A timeout of a minute: every call below must fail at once, never wait for it.
    cache = createCache({ store, timeout: '60s', circuitBreaker: { threshold: 3, cooldownMs: 200 }, logger: capturedLogger() });
  });
  afterAll(async () => {
    await cache.close();
    await server.stop();
  });

  it('is a miss at once (the connection is known down), goes down once, and recovers', async () => {
    expect(await cache.set('k', 'before')).toBe(true);
    expect(await cache.get('k')).toBe('before');
    const errors = errorsOf(cache);
    const health: string[] = [];
    cache.events.addEventListener('health', (e) => health.push(`${e.detail.kind} ${e.detail.state}`));
    await server.stop();
    await sleep(50); // the client notices the closed socket

    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.set('k2', 'during')).toBe(false);
    expect(await cache.getOrSet('k3', () => 'from the origin')).toBe('from the origin');
    expect(await cache.incr('n')).toBeUndefined();
    expect(await cache.delete('k')).toBe(0);
    expect(await cache.has('k')).toBe(false);
    for (let i = 0; i < 20; i++) await cache.get(`more${i}`);
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(errors.every((e) => e.source === 'store')).toBe(true);
    // Each names the store, its address and the cause, not the client library's retry text.
    for (const e of errors) expect(String((e.error as Error).message)).toMatch(new RegExp(`^valkey 127\\.0\\.0\\.1:${server.port}: `));
    expect(errors.some((e) => e.error instanceof StoreUnavailableError)).toBe(true);
    expect(cache.stats().storeErrors).toBe(errors.length);
    expect(cache.stats().storeSkipped).toBeGreaterThan(0);
    expect(health.sort()).toEqual(['read down', 'write down']);
    expect(cache.health()).toEqual({ reads: 'down', writes: 'down' });

    server = await startRedis({ bin: process.env.REDIS_SERVER_BIN, port: server.port });
    // Recovery: the client reconnects by itself and one probe per cool-down finds the store back.
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i++) {
      await sleep(100);
      recovered = await cache.set('k4', 'after');
    }
    expect(recovered).toBe(true);
    expect(await cache.get('k4')).toBe('after');
    expect(health.slice(2).sort()).toEqual(['read up', 'write up']);
  });
});

describe.runIf(requireRedis())('a full server (maxmemory, noeviction)', () => {
  let server: RedisServer;
  let admin: Valkey;
  let store: ValkeyStore;
  beforeAll(async () => {
    server = await startRedis({ bin: process.env.REDIS_SERVER_BIN });
    admin = new Valkey(server.url);
    store = valkeyStore(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await store.close();
    await server.stop();
  });

  it('refuses writes and still serves every read: reads stay up while writes go down', async () => {
    const cache = createCache({ store, closeStore: false, circuitBreaker: { threshold: 3 }, logger: capturedLogger() });
    for (let i = 0; i < 20; i++) await cache.set(`hot${i}`, { i, pad: 'x'.repeat(100) });
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', String(used + 64 * 1024));
    const errors = errorsOf(cache);
    let refused = 0;
    for (let i = 0; i < 200; i++) if (!(await cache.set(`fill${i}`, 'y'.repeat(2048)))) refused++;
    expect(refused).toBeGreaterThan(100);
    expect(errors.some((e) => /OOM/.test(String((e.error as Error).message)))).toBe(true);
    expect(cache.health()).toEqual({ reads: 'up', writes: 'down' });
    const hits = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.get(`hot${i}`)));
    expect(hits.every((h, i) => (h as { i: number }).i === i)).toBe(true);
  });
});

describe.runIf(requireRedis())('a store that answers too late', () => {
  // A server of its own: CLIENT PAUSE holds every client of a server, and the other files run beside this one.
  let server: RedisServer;
  let store: ValkeyStore;
  let admin: Valkey;
  beforeAll(async () => {
    server = await startRedis({ bin: process.env.REDIS_SERVER_BIN });
    store = valkeyStore(server.url);
    admin = new Valkey(server.url);
  });
  afterAll(async () => {
    await admin.client('UNPAUSE');
    admin.disconnect();
    await store.close();
    await server.stop();
  });

  it('is a miss plus a timeout event; strict mode throws instead', async () => {
    const ns = uniqueNamespace('slow');
    const lenient = createCache({ store, namespace: ns, timeout: 100, logger: capturedLogger() });
    const strict = createCache({ store, namespace: ns, timeout: 100, strict: true, circuitBreaker: { threshold: 100 }, logger: capturedLogger() });
    await lenient.set('v', 1);
    const errors = errorsOf(lenient);
    // CLIENT PAUSE holds every client's commands on the real server for 400 ms.
    await admin.client('PAUSE', 400, 'ALL');
    expect(await lenient.get('v')).toBeUndefined();
    expect(errors[0]?.error).toBeInstanceOf(StoreTimeoutError);
    await expect(strict.get('v')).rejects.toBeInstanceOf(StoreTimeoutError);
    await admin.client('UNPAUSE');
    await sleep(50);
    expect(await lenient.get('v')).toBe(1);
    await lenient.clear();
  });
});
