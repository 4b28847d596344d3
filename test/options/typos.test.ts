/**
 * Issue 20, item 4 (first-hour defect 7): every options object is checked like createCache's,
 * with a suggestion for a misspelt name, and the message names the option as the user wrote it
 * and the function they called, never an internal one. Per-call options (getOrSet, set,
 * setMany's entries, incr) are checked on every call; middleware and server options once, when
 * they are created, before any request.
 */
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { describe, it } from 'vitest';
import { bunRedisStore } from '../../adapters/bun-redis/index.ts';
import { cloudflareKvStore } from '../../adapters/cloudflare-kv/index.ts';
import { memoryStore } from '../../adapters/memory/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { chooseStore, describeChoice } from '../../runtimes/shared/env-store.ts';
import { cache as expressCache } from '../../runtimes/node-http/express/index.ts';
import { serve as nodeServe, storeFromEnv, withCache as nodeWithCache } from '../../runtimes/node/index.ts';
import { startProxy } from '../../products/proxy/index.ts';
import { withCache as workersWithCache } from '../../runtimes/workers/index.ts';
import { cache as honoCache } from '../../src/bindings/hono/index.ts';
import { createHttpCache, withCache as httpWithCache } from '../../src/http/index.ts';
import { cached, cachedResponse, createCache, type Cache } from '../../src/index.ts';

const handler = async () => new Response('x');
const typo = (where: string, name: string, guess: string) => new RegExp(`^${escapeRegExp(where)}: unknown option "${name}" \\(did you mean "${guess}"\\?\\); known options: `);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('per-call options of the cache', () => {
  const cache = createCache({ store: memoryStore(), logger: false });

  it('getOrSet, set, setMany and incr refuse a misspelt option, naming the call and the key', async () => {
    let ran = false;
    await assert.rejects(
      cache.getOrSet('user:42', () => (ran = true), { ttL: '1m' } as never),
      (error: unknown) => error instanceof TypeError && typo('cachette: getOrSet("user:42")', 'ttL', 'ttl').test(error.message),
    );
    assert.equal(ran, false, 'the factory never ran for a call with bad options');
    await assert.rejects(cache.set('k', 1, { tag: ['a'] } as never), { name: 'TypeError', message: typo('cachette: set("k")', 'tag', 'tags') });
    await assert.rejects(cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2, maxage: 5 } as never]), { name: 'TypeError', message: typo('cachette: setMany("b")', 'maxage', 'ttl') });
    assert.equal(await cache.get('a'), undefined, 'nothing of a batch with a bad entry was written');
    await assert.rejects(cache.incr('n', 1, { tll: 5 } as never), { name: 'TypeError', message: typo('cachette: incr("n")', 'tll', 'ttl') });
    await assert.rejects(cache.set('k', 1, 'one minute' as never), /cachette: set\("k"\): options must be an object, got string/);
  });

  it("a bare ttl given as the options (cache-manager's habit) is told to pass { ttl }", async () => {
    await assert.rejects(cache.set('k', 1, 30000 as never), {
      name: 'TypeError',
      message: 'cachette: set("k"): options must be an object, got number; to give a ttl, pass { ttl: 30000 }',
    });
    await assert.rejects(cache.set('k', 1, '30s' as never), { message: 'cachette: set("k"): options must be an object, got string; to give a ttl, pass { ttl: "30s" }' });
    await assert.rejects(
      cache.getOrSet('k', () => 1, 60_000 as never),
      { message: /getOrSet\("k"\): options must be an object, got number; to give a ttl, pass \{ ttl: 60000 \}$/ },
    );
    await assert.rejects(
      cache.getOrSetMany(['k'], () => [1], '1m' as never),
      { message: /to give a ttl, pass \{ ttl: "1m" \}$/ },
    );
    await assert.rejects(cache.incr('n', 1, 5000 as never), { message: /incr\("n"\): options must be an object, got number; to give a ttl, pass \{ ttl: 5000 \}$/ });
    assert.throws(() => cache.wrap(async function load() {}, 30000 as never), { message: 'cachette: cache.wrap(): options must be an object, got 30000; to give a ttl, pass { ttl: 30000 }' });
    // What is no duration gets no such hint.
    await assert.rejects(cache.set('k', 1, 'one minute' as never), { message: 'cachette: set("k"): options must be an object, got string' });
    await assert.rejects(cache.set('k', 1, -5 as never), { message: 'cachette: set("k"): options must be an object, got number' });
  });

  it('takes every option it documents', async () => {
    assert.equal(await cache.getOrSet('g', () => 1, { ttl: '1m', grace: '1m', tags: ['t'] }), 1);
    assert.equal(await cache.set('s', 1, { ttl: 1000, grace: 0, tags: [] }), true);
    assert.equal(await cache.setMany([{ key: 'm', value: 1, ttl: '1s', grace: '1s', tags: ['t'] }]), true);
    assert.equal(await cache.incr('i', 1, { ttl: '1m' }), 1);
  });

  it('wrap and @cached refuse a misspelt option where the function is wrapped', () => {
    assert.throws(() => cache.wrap(async function load() {}, { ttL: '1m' } as never), { name: 'TypeError', message: typo('cachette: cache.wrap()', 'ttL', 'ttl') });
    assert.throws(() => cache.wrap(async function load() {}, { tag: ['x'] } as never), { name: 'TypeError', message: typo('cachette: cache.wrap()', 'tag', 'tags') });
    const context = { kind: 'method', name: 'find', static: false, private: false } as unknown as ClassMethodDecoratorContext<unknown, () => Promise<unknown>>;
    assert.throws(() => cached(cache as Cache, { nmae: 'x' } as never)(async () => 1, context), { name: 'TypeError', message: typo('cachette: @cached find', 'nmae', 'name') });
  });

  it('createCache names the adapter to call for a store given as a URL', () => {
    assert.throws(() => createCache({ store: 'redis://127.0.0.1:6379' as never }), {
      name: 'TypeError',
      message: 'createCache: "store": got the string "redis://127.0.0.1:6379"; pass valkeyStore("redis://127.0.0.1:6379") from cachette/adapters/valkey',
    });
    assert.throws(() => createCache({ store: 'https://x.upstash.io' as never }), /pass upstashStore\(\{ url: "https:\/\/x\.upstash\.io", token \}\)/);
    assert.throws(() => createCache({ store: 'sqlite:./cache.db' as never }), /pass sqliteStore\("\.\/cache\.db"\) from cachette\/adapters\/sqlite/);
    assert.throws(() => createCache({ store: memoryStore(), logger: { warn() {} } as never }), /"logger" must have info\(\) and warn\(\) methods \(console does\), or be false/);
  });
});

describe('the HTTP cache and its bindings', () => {
  it('cachette/http names withCache() and createHttpCache()', () => {
    assert.throws(() => httpWithCache(handler, { store: memoryStore(), ttL: '1m' } as never), { name: 'TypeError', message: typo('withCache() from cachette/http', 'ttL', 'ttl') });
    assert.throws(() => createHttpCache({ store: memoryStore(), maxage: 60 } as never), { name: 'TypeError', message: typo('createHttpCache() from cachette/http', 'maxage', 'ttl') });
    assert.throws(() => createHttpCache({ store: memoryStore(), heuristic: { fractoin: 0.1 } } as never), {
      name: 'TypeError',
      message: typo('createHttpCache() from cachette/http: heuristic', 'fractoin', 'fraction'),
    });
    assert.throws(() => createHttpCache({ store: memoryStore(), cache: createCache({ store: memoryStore() }) }), /createHttpCache\(\) from cachette\/http: pass a "store" or a "cache", not both/);
  });

  it('Hono: cache() from cachette/hono, checked once when the middleware is created', () => {
    const app = new Hono();
    assert.throws(() => honoCache({ store: memoryStore(), ttL: '30s', app } as never), { name: 'TypeError', message: typo('cache() from cachette/hono', 'ttL', 'ttl') });
    assert.throws(() => honoCache({ store: memoryStore(), ap: app } as never), { name: 'TypeError', message: typo('cache() from cachette/hono', 'ap', 'app') });
    assert.throws(() => honoCache({ ttl: '30s' }), { name: 'TypeError', message: 'cache() from cachette/hono: pass a "store" (e.g. memoryStore()) or a "cache" (from createCache)' });
    assert.throws(() => honoCache(undefined as never), { name: 'TypeError', message: 'cache() from cachette/hono: options must be an object, got undefined' });
    assert.throws(() => honoCache({ store: 'redis://127.0.0.1:6379' as never }), {
      name: 'TypeError',
      message: 'cache() from cachette/hono: "store": got the string "redis://127.0.0.1:6379"; pass valkeyStore("redis://127.0.0.1:6379") from cachette/adapters/valkey',
    });
  });

  it('Express: cache() from cachette/express', () => {
    assert.throws(() => expressCache({ store: memoryStore(), tag: ['a'] } as never), { name: 'TypeError', message: typo('cache() from cachette/express', 'tag', 'tags') });
    assert.throws(() => expressCache({}), { name: 'TypeError', message: 'cache() from cachette/express: pass a "store" (e.g. memoryStore()) or a "cache" (from createCache)' });
  });

  it('@cachedResponse', () => {
    assert.throws(() => cachedResponse({ store: memoryStore(), xcache: true } as never), { name: 'TypeError', message: typo('@cachedResponse()', 'xcache', 'xCache') });
  });

  it('Workers: withCache() from cachette/workers, checked at module scope, not at the first request', () => {
    assert.throws(() => workersWithCache(handler, { ttL: '1m' } as never), { name: 'TypeError', message: typo('withCache() from cachette/workers', 'ttL', 'ttl') });
    assert.throws(() => workersWithCache(handler, { kvBindng: 'KV' } as never), { name: 'TypeError', message: typo('withCache() from cachette/workers', 'kvBindng', 'kvBinding') });
    assert.throws(() => workersWithCache(handler, { cache: createCache({ store: memoryStore() }) } as never), /withCache\(\) from cachette\/workers: unknown option "cache"/);
  });

  it('the proxy: startProxy() and its purge options', async () => {
    await assert.rejects(startProxy({ origin: 'http://127.0.0.1:1', store: memoryStore(), ttL: '1m' } as never), { name: 'TypeError', message: typo('startProxy()', 'ttL', 'ttl') });
    await assert.rejects(startProxy({ origin: 'http://127.0.0.1:1', store: memoryStore(), trustForwaded: true } as never), {
      name: 'TypeError',
      message: typo('startProxy()', 'trustForwaded', 'trustForwarded'),
    });
    await assert.rejects(startProxy({ origin: 'http://127.0.0.1:1', store: memoryStore(), purge: { token: 'a'.repeat(16), paht: '/purge' } } as never), {
      name: 'TypeError',
      message: typo('startProxy(): purge', 'paht', 'path'),
    });
  });
});

describe('the server helpers (cachette/node; cachette/bun and cachette/deno share the code)', () => {
  it('withCache() and serve({ cache }) check the cache options before choosing a store', async () => {
    assert.throws(() => nodeWithCache(handler, { ttL: '1m', log: false } as never), { name: 'TypeError', message: typo('withCache() from cachette/node', 'ttL', 'ttl') });
    assert.throws(() => nodeWithCache(handler, { lgo: false } as never), { name: 'TypeError', message: typo('withCache() from cachette/node', 'lgo', 'log') });
    await assert.rejects(nodeServe(handler, { port: 0, cache: { maxage: 60, log: false } } as never), { name: 'TypeError', message: typo('serve({ cache }) from cachette/node', 'maxage', 'ttl') });
    await assert.rejects(storeFromEnv({ kvbinding: 'x', log: false } as never), { name: 'TypeError', message: typo('storeFromEnv() from cachette/node', 'kvbinding', 'kvBinding') });
  });

  it('take a store named by a string where the environment could name it', async () => {
    assert.deepEqual(chooseStore({ REDIS_URL: 'redis://other:1' }, { store: 'redis://127.0.0.1:6379' }), { kind: 'valkey', url: 'redis://127.0.0.1:6379', variable: 'store' });
    assert.equal(describeChoice(chooseStore({}, { store: 'redis://:secret@127.0.0.1:6379' })), 'store: valkey (the store option redis://:***@127.0.0.1:6379)');
    assert.deepEqual(chooseStore({}, { store: 'sqlite:./cache.db' }), { kind: 'sqlite', path: './cache.db', variable: 'store' });
    assert.deepEqual(chooseStore({ VALKEY_URL: 'redis://h:1' }, { store: 'memory' }), { kind: 'memory', variable: 'store' });
    assert.throws(() => chooseStore({}, { store: 'https://x.upstash.io' }), /an Upstash URL needs its token: pass upstashStore\(\{ url, token \}\)/);
    assert.throws(() => chooseStore({}, { store: 42 as never }), /"store" must be a store object such as memoryStore\(\) or valkeyStore\(url\), got number/);
    const lines: string[] = [];
    const served = nodeWithCache(async () => new Response('hi', { headers: { 'cache-control': 'max-age=60' } }), { store: 'memory', log: (line) => lines.push(line) });
    assert.equal(await (await served(new Request('http://localhost/'))).text(), 'hi');
    assert.match((await served(new Request('http://localhost/'))).headers.get('cache-status') ?? '', /^cachette; hit/);
    assert.deepEqual(lines, ['[cachette] store: memory (the store option memory; not shared between processes or isolates)']);
    await served.close();
  });
});

describe('store options', () => {
  it('each store refuses a misspelt option, naming its function', () => {
    assert.throws(() => memoryStore({ maxEntry: 5 } as never), { name: 'TypeError', message: typo('memoryStore()', 'maxEntry', 'maxEntries') });
    assert.throws(() => valkeyStore({ connection: 'redis://127.0.0.1:1', clientOption: {} } as never), { name: 'TypeError', message: typo('valkeyStore()', 'clientOption', 'clientOptions') });
    assert.throws(() => valkeyStore({ cluster: ['127.0.0.1:1'], onConnectionErorr: () => {} } as never), {
      name: 'TypeError',
      message: typo('valkeyStore({ cluster })', 'onConnectionErorr', 'onConnectionError'),
    });
    assert.throws(() => upstashStore({ url: 'https://x.upstash.io', token: 't', retry: 1 } as never), { name: 'TypeError', message: typo('upstashStore()', 'retry', 'retries') });
    assert.throws(() => sqliteStore({ path: ':memory:', maxByte: 1 } as never), { name: 'TypeError', message: typo('sqliteStore()', 'maxByte', 'maxBytes') });
    assert.throws(() => cloudflareKvStore({ namespace: {}, concurency: 2 } as never), { name: 'TypeError', message: typo('cloudflareKvStore()', 'concurency', 'concurrency') });
    assert.throws(() => bunRedisStore({ connection: 'redis://127.0.0.1:1', clientOption: {} } as never), { name: 'TypeError', message: typo('bunRedisStore()', 'clientOption', 'clientOptions') });
  });
});
