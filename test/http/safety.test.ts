/**
 * Node-only checks of what the HTTP layer promises when the store misbehaves (issue 10, items 7
 * and 9): Cache-Status never claims `stored` while the store is known down or its circuit is
 * open, and a stored response that cannot be served is reported and deleted. The stores here
 * are a real memory store behind a switch and a real Valkey client aimed at a closed port.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/cache/create-cache.ts';
import type { CacheEventMap } from '../../src/cache/events.ts';
import { withCache } from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';
import { freePort } from '../support/redis-server.ts';
import { FakeClock, reply, ScriptedOrigin } from './scripted-origin.ts';

/** A memory store whose writes fail while `writesFail` is set (a full server refusing writes), and every call while `down` is. */
function switchableStore(): Store & { writesFail: boolean; down: boolean } {
  const inner = memoryStore();
  const refuse = () => Promise.reject(new Error('OOM command not allowed when used memory > maxmemory'));
  const store = {
    name: 'switchable memory',
    local: true as const,
    writesFail: false,
    down: false,
    get: (key: string) => (store.down ? refuse() : inner.get(key)),
    getMany: (keys: readonly string[]) => (store.down ? refuse() : inner.getMany(keys)),
    set: (key: string, value: Uint8Array, ttlMs?: number) => (store.writesFail || store.down ? refuse() : inner.set(key, value, ttlMs)),
    setMany: (entries: Parameters<Store['setMany']>[0]) => (store.writesFail || store.down ? refuse() : inner.setMany(entries)),
    delete: (keys: readonly string[]) => inner.delete(keys),
    incr: (key: string, by: number, ttlMs?: number) => inner.incr(key, by, ttlMs),
    close: () => inner.close(),
  };
  return store;
}

const cacheStatus = async (res: Response) => {
  await res.arrayBuffer();
  return res.headers.get('cache-status') ?? '';
};

describe('Cache-Status tells the truth about storing', () => {
  it('says nothing of `stored` while writes are known to fail, and says it again once one succeeds', async () => {
    const store = switchableStore();
    const origin = new ScriptedOrigin(new FakeClock()).on('/a', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60' }));
    const cached = withCache(origin.fetch, { store });
    store.writesFail = true;
    assert.match(await cacheStatus(await cached(new Request('http://x/a?1'))), /stored/, 'nothing known yet: the write is attempted');
    await cached.idle();
    const down = await cacheStatus(await cached(new Request('http://x/a?2')));
    assert.doesNotMatch(down, /stored/);
    assert.match(down, /detail="store-down"/);
    await cached.idle();
    store.writesFail = false;
    // Still believed down: this write is attempted and succeeds, which clears it.
    assert.doesNotMatch(await cacheStatus(await cached(new Request('http://x/a?3'))), /stored/);
    await cached.idle();
    assert.match(await cacheStatus(await cached(new Request('http://x/a?4'))), /stored/);
    await cached.idle();
    assert.match(await cacheStatus(await cached(new Request('http://x/a?3'))), /hit/, 'the write during "store-down" did happen');
    await cached.close();
  });

  it('says nothing of `stored` while the circuit breaker skips the store', async () => {
    const store = switchableStore();
    const origin = new ScriptedOrigin(new FakeClock()).on('/b', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60' }));
    const cache = createCache({ store, namespace: 'http', compression: false, circuitBreaker: { threshold: 2, cooldownMs: 60_000 } });
    const cached = withCache(origin.fetch, { cache });
    store.down = true;
    for (let i = 0; i < 3; i++) {
      await cacheStatus(await cached(new Request(`http://x/b?${i}`)));
      await cached.idle();
    }
    assert.equal(cache.health().writes, 'down', 'the circuit opened');
    store.down = false;
    const open = await cacheStatus(await cached(new Request('http://x/b?open')));
    assert.doesNotMatch(open, /stored/, 'the write will be skipped by the open circuit');
    await cached.close();
    await cache.close();
  });

  it('says nothing of `stored` when the store cannot be reached at all', async () => {
    const dead = valkeyStore({ connection: `redis://127.0.0.1:${await freePort()}`, clientOptions: { retryStrategy: () => null, lazyConnect: true } });
    const origin = new ScriptedOrigin(new FakeClock()).on('/d', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60' }));
    const cached = withCache(origin.fetch, { store: dead });
    for (let i = 1; i <= 2; i++) {
      const res = await cached(new Request('http://x/d'));
      assert.equal(res.status, 200);
      assert.doesNotMatch(await cacheStatus(res), /stored/, `request ${i}: the lookup already failed`);
      await cached.idle();
    }
    await cached.close();
    await dead.close();
  });
});

describe('stored responses that cannot be served', () => {
  it('are reported as `corrupt` with the reason, and deleted', async () => {
    const store = memoryStore();
    const cache = createCache({ store, namespace: 'http', compression: false });
    const corrupt: Array<CacheEventMap['corrupt']> = [];
    cache.events.addEventListener('corrupt', (e) => corrupt.push((e as CustomEvent<CacheEventMap['corrupt']>).detail));
    // The origin's answers are not stored, so whatever is under the key afterwards was planted.
    const origin = new ScriptedOrigin(new FakeClock()).on('/p', (_, k) => reply(`v${k}`, { 'cache-control': 'no-store' }));
    const stored = new ScriptedOrigin(new FakeClock()).on('/p', () => reply('stored', { 'cache-control': 'max-age=60' }));
    const seeding = withCache(stored.fetch, { cache });
    await (await seeding(new Request('http://x/p'))).arrayBuffer();
    await seeding.idle();
    const good = await cache.get<Record<string, unknown>>('u:http://x/p');
    const cached = withCache(origin.fetch, { cache });
    for (const [entry, reason] of [
      [{ ...good, headers: [['bad name', 'x']] }, /bad header name "bad name"/],
      [{ ...good, headers: [['x-a', 'a\r\nb: c']] }, /"x-a" holds CR, LF or NUL/],
      [{ ...good, status: 101 }, /status 101 cannot be served/],
      [{ ...good, status: 999 }, /status 999 cannot be served/],
    ] as const) {
      await cache.set('u:http://x/p', entry, { ttl: 60_000 });
      const res = await cached(new Request('http://x/p'));
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      await cached.idle();
      assert.match(corrupt.at(-1)!.reason, reason);
      assert.equal(corrupt.at(-1)!.key, 'u:http://x/p');
      assert.equal(await cache.get('u:http://x/p'), undefined, 'deleted');
    }
    assert.equal(corrupt.length, 4);
    await cached.close();
    await seeding.close();
    await cache.close();
  });
});
