/**
 * cachette/next's handlers against Next's contracts (next/dist/server/lib/cache-handlers/types.d.ts
 * and the incremental cache's CacheHandler), without Next: the suite every store passes
 * (handler-suite.ts; over a real redis-server in handlers-valkey.test.ts) on process memory, then
 * what memory alone can show (lifetimes on an injected clock, warnings said once), the options,
 * and the failures Next must never see (a store that refuses connections, one that never
 * answers). The real Next server runs them in next.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { CacheHandler as NextCacheHandler } from 'next/dist/server/lib/cache-handlers/types';
import type { CacheHandlerContext, CacheHandler as NextIncrementalHandler } from 'next/dist/server/lib/incremental-cache';
import type { GetIncrementalFetchCacheContext, SetIncrementalFetchCacheContext } from 'next/dist/server/response-cache';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import * as native from '../../runtimes/native/next.ts';
import { createCache } from '../../src/index.ts';
import { createCacheHandler, createIncrementalCacheHandler, type NextCacheOptions } from '../../src/next/index.ts';
import { MAX_ENTRY_TAGS } from '../../src/next/tags.ts';
import type { GenerationWrite, Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { FailingStore } from '../support/wrapped-stores.ts';
import { appPage, entry, pageContext, pageSet, recordingLogger, text } from './handler-fixtures.ts';
import { handlerSuite } from './handler-suite.ts';

/** Two instances of an app over one memory store (the clock- and warning-bound tests below). */
function instances(options: NextCacheOptions = {}) {
  const store = memoryStore();
  const make = () => ({
    useCache: createCacheHandler({ store, writeFence: 0, logger: false, ...options }),
    Incremental: createIncrementalCacheHandler({ store, writeFence: 0, logger: false, ...options }),
  });
  return { store, a: make(), b: make() };
}

handlerSuite('process memory', () => {
  const store = memoryStore();
  return { connect: () => store, close: () => store.close() };
});

describe('createCacheHandler over memory: lifetimes, warnings and the shape Next loads', () => {
  it('serves but does not store an entry with more than twice Next’s 128 tags, and says so', async () => {
    const logger = recordingLogger();
    const handler = createCacheHandler({ store: memoryStore(), logger });
    const Incremental = createIncrementalCacheHandler({ store: memoryStore(), logger: false });
    await handler.set('kept', Promise.resolve(entry('x', { tags: Array.from({ length: MAX_ENTRY_TAGS }, (_, i) => `t${i}`) })));
    assert.ok(await handler.get('kept', []), `${MAX_ENTRY_TAGS} tags are stored`);
    const tags = Array.from({ length: MAX_ENTRY_TAGS + 1 }, (_, i) => `t${i}`);
    await handler.set('a', Promise.resolve(entry('x', { tags })));
    await handler.set('b', Promise.resolve(entry('x', { tags })));
    assert.equal(await handler.get('a', []), undefined);
    assert.deepEqual(
      logger.lines.filter((line) => line.includes(`${MAX_ENTRY_TAGS + 1} tags`)),
      [`[cachette/next] an entry with ${MAX_ENTRY_TAGS + 1} tags (more than ${MAX_ENTRY_TAGS}, twice Next's 128) is served but not stored, nor is any later one with as many; first seen for a`],
    );
    await new Incremental().set('/page', appPage('x', tags.join(',')), pageSet);
    assert.equal(await new Incremental().get('/page', pageContext), null);
  });

  it('treats what is not its record as a miss, and a cache that cannot store bytes as a warning', async () => {
    const logger = recordingLogger();
    const shared = createCache({ store: memoryStore(), logger: false });
    const handler = createCacheHandler({ cache: shared, logger });
    await shared.set('next/use-cache:key', { tags: 'not an array', body: 'x' });
    assert.equal(await handler.get('key', []), undefined);
    assert.match(logger.lines.join('\n'), /not a "use cache" record/);
    for (const serializer of ['raw', 'json'] as const) {
      const handler = createCacheHandler({ cache: createCache({ store: memoryStore(), serializer, logger: false }), logger });
      await handler.set('key', Promise.resolve(entry('x')));
      assert.equal(await handler.get('key', []), undefined, serializer);
    }
    assert.match(logger.lines.join('\n'), /serializer 'auto' or 'cbor'/);
  });

  it('keeps an entry for its expire, not longer', async () => {
    const clock = new FakeClock();
    const { a } = instances({ clock });
    await a.useCache.set('key', Promise.resolve(entry('v', { expire: 60 })));
    clock.advance(59_000);
    assert.equal(await text(await a.useCache.get('key', [])), 'v');
    clock.advance(2000);
    assert.equal(await a.useCache.get('key', []), undefined);
  });

  it('serves an entry staled by a soft revalidation for a day at most, and one past its expire not at all', async () => {
    const clock = new FakeClock();
    const { a, b } = instances({ clock });
    await a.useCache.set('long', Promise.resolve(entry('v', { tags: ['posts'], expire: 3 * 86_400 })));
    await b.useCache.updateTags(['posts'], { expire: 31_536_000 });
    clock.advance(86_400_000 - 1000);
    assert.equal((await a.useCache.get('long', []))?.revalidate, -1, 'stale inside the day');
    clock.advance(2000);
    assert.equal(await a.useCache.get('long', []), undefined, 'a miss past it');
    await a.useCache.set('short', Promise.resolve(entry('v', { tags: ['news'], expire: 60 })));
    clock.advance(30_000);
    await b.useCache.updateTags(['news'], { expire: 31_536_000 }); // stale for 60 s more in the store
    clock.advance(31_000);
    assert.equal(await a.useCache.get('short', []), undefined, 'its own expire ends it');
  });

  it('says once that it serves entries of other builds, and once that it refuses another version', async () => {
    const store = memoryStore();
    const logger = recordingLogger();
    const old = createCacheHandler({ store, buildId: 'build-1', logger: false });
    const current = createCacheHandler({ store, buildId: 'build-2', logger });
    const next = createCacheHandler({ store, buildId: 'build-3', version: 2, logger });
    for (const key of ['a', 'b']) await old.set(key, Promise.resolve(entry(key)));
    for (const key of ['a', 'b']) {
      assert.ok(await current.get(key, []));
      assert.equal(await next.get(key, []), undefined);
    }
    assert.deepEqual(logger.lines, [
      '[cachette/next] serving data entries stored by other builds (counted in stats().fromOtherBuilds), first one of build "build-1"',
      `[cachette/next] entries stored under version null are misses for this handler's 2 (counted in stats().otherVersions), first for a`,
    ]);
    assert.deepEqual(
      [current.stats(), next.stats()],
      [
        { fromOtherBuilds: 2, otherVersions: 0 },
        { fromOtherBuilds: 0, otherVersions: 2 },
      ],
    );
  });

  it('is the object Next 16 loads from cacheHandlers', () => {
    const handler: NextCacheHandler = createCacheHandler({ store: memoryStore() });
    assert.equal(typeof handler.refreshTags, 'function');
  });
});

describe('createIncrementalCacheHandler over memory: lifetimes and the class Next loads', () => {
  it('keeps a page for its expire, and a year when Next gives none', async () => {
    const clock = new FakeClock();
    const { a } = instances({ clock });
    const handler = new a.Incremental();
    await handler.set('/short', appPage('v', ''), { cacheControl: { revalidate: 10, expire: 60 } });
    await handler.set('/default', appPage('v', ''), { cacheControl: { revalidate: false, expire: undefined } });
    clock.advance(61_000);
    assert.equal(await handler.get('/short', pageContext), null);
    assert.ok(await handler.get('/default', pageContext));
    clock.advance(366 * 86_400_000);
    assert.equal(await handler.get('/default', pageContext), null);
  });

  it('is a class Next constructs with its context and calls with its arguments', async () => {
    const Incremental = createIncrementalCacheHandler({ store: memoryStore() });
    const context: CacheHandlerContext = { revalidatedTags: [], _requestHeaders: {} };
    const handler: Pick<NextIncrementalHandler, 'revalidateTag' | 'resetRequestCache'> = new Incremental(context);
    const fetchContext: GetIncrementalFetchCacheContext = { kind: 'FETCH' as unknown as GetIncrementalFetchCacheContext['kind'], tags: [] };
    const setContext: SetIncrementalFetchCacheContext = { fetchCache: true, tags: [] };
    await new Incremental(context).set('fetched', { kind: 'FETCH', data: { headers: {}, body: '', url: 'https://example.com' }, revalidate: 60 }, setContext);
    assert.equal(await new Incremental(context).get('missing', fetchContext), null);
    handler.resetRequestCache();
    await handler.revalidateTag('anything');
  });
});

describe('cachette/next options', () => {
  it('says which option is unknown or misplaced, at creation', () => {
    const store = memoryStore();
    assert.throws(() => createCacheHandler({ store, timout: '1s' } as NextCacheOptions), /unknown option "timout" \(did you mean "timeout"\?\)/);
    assert.throws(() => createCacheHandler({ store, cache: createCache({ store }) }), /"store" or "cache", not both/);
    assert.throws(() => createIncrementalCacheHandler({ cache: createCache({ store }), prefix: 'x' }), /"prefix" is an option of the cache; with "cache", give it to createCache\(\)/);
    assert.throws(() => createCacheHandler({ store, writeFence: Infinity }), RangeError);
    assert.throws(() => createCacheHandler({ store, writeFence: '30s' }), /writeFence \(30000 ms\) is longer than writeLeaseTtl \(10000 ms\)/);
    assert.doesNotThrow(() => createCacheHandler({ store, writeFence: '30s', writeLeaseTtl: '30s' }));
    assert.throws(() => createCacheHandler({ store, timeout: -1 }), RangeError);
    assert.throws(() => createCacheHandler({ store, l1: { consistency: 'sometimes' } } as unknown as NextCacheOptions), /l1.consistency/);
    assert.throws(() => createCacheHandler({ cache: {} as never }), /"cache" must be a cache/);
  });

  it('checks buildId and version at creation', () => {
    const store = memoryStore();
    for (const buildId of ['', 'a:b', 'x'.repeat(129), 42]) {
      assert.throws(() => createCacheHandler({ store, buildId } as NextCacheOptions), /"buildId" must be a non-empty string/, String(buildId));
    }
    for (const version of ['', Number.NaN, {}]) {
      assert.throws(() => createIncrementalCacheHandler({ store, version } as unknown as NextCacheOptions), /"version" must be a non-empty string or a finite number/, String(version));
    }
    assert.doesNotThrow(() => createCacheHandler({ store, buildId: 'a1b2c3', version: 2 }));
  });

  it('needs a store or a cache in the runtime-neutral build, which has no environment', () => {
    assert.throws(() => createCacheHandler(), /pass a "store" \(or a "cache"\)/);
    assert.throws(() => createIncrementalCacheHandler({ store: 'redis://127.0.0.1:6379' }), /names a store only on Node, Bun and Deno/);
  });

  it('picks the store from the environment on Node, says so once, and shares it between the two handlers', async () => {
    const saved = process.env.CACHETTE_STORE;
    process.env.CACHETTE_STORE = 'memory';
    const lines: string[] = [];
    try {
      const useCache = native.createCacheHandler({ log: (line) => lines.push(line), writeFence: 0 });
      const Incremental = native.createIncrementalCacheHandler({ log: (line) => lines.push(line) });
      assert.deepEqual(lines, ['[cachette] store: memory (CACHETTE_STORE=memory; not shared between processes or isolates)']);
      await useCache.set('key', Promise.resolve(entry('v', { tags: ['shared'] })));
      await new Incremental().revalidateTag('shared');
      assert.equal(await useCache.get('key', []), undefined, 'one store: a revalidation through either handler reaches both');
    } finally {
      if (saved === undefined) delete process.env.CACHETTE_STORE;
      else process.env.CACHETTE_STORE = saved;
    }
    assert.throws(() => native.createCacheHandler({ store: 'redis://' }), /must be a redis:\/\/|store/);
  });
});

describe('cachette/next when the store is down', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A port that accepts connections and never answers: a store that hangs. */
  async function silentPort(): Promise<number> {
    const server = createServer((socket) => void sockets.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  it('lets no fence commit reject unhandled when the store goes down during the fence (a strict cache)', async () => {
    /** Fails generation writes too once its writes fail (FailingStore passes them on). */
    class FencedStore extends FailingStore {
      override writeGenerations(write: GenerationWrite) {
        return this.writes === 'fail' ? Promise.reject(this.error()) : super.writeGenerations!(write);
      }
    }
    const store = new FencedStore(memoryStore());
    const cache = createCache({ store, strict: true, logger: false });
    const handler = createCacheHandler({ cache, writeFence: '5ms', logger: false });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const commitFailed = new Promise((resolve) => cache.events.addEventListener('error', resolve, { once: true }));
      await handler.updateTags(['cart']);
      store.writes = 'fail';
      await commitFailed;
      // A rejection nobody handles is reported after the microtasks of the turn it happened in.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  for (const [name, url] of [
    ['refuses connections', async () => 'redis://127.0.0.1:1'],
    ['accepts and never answers', async () => `redis://127.0.0.1:${await silentPort()}`],
  ] as const) {
    it(`answers misses, stores nothing and revalidates without throwing when the store ${name}`, async () => {
      const store: Store = valkeyStore(await url());
      const options = { store, timeout: '200ms', writeFence: 0, logger: false } as const;
      const useCache = createCacheHandler(options);
      const Incremental = createIncrementalCacheHandler(options);
      try {
        await useCache.set('key', Promise.resolve(entry('v', { tags: ['t'] })));
        assert.equal(await useCache.get('key', ['_N_T_/']), undefined);
        await useCache.updateTags(['t']);
        await new Incremental().set('/index', appPage('v', 't'), pageSet);
        assert.equal(await new Incremental().get('/index', pageContext), null);
        await new Incremental().revalidateTag('t', { expire: 0 });
      } finally {
        // A server that never answers never answers QUIT either: let the connection go first.
        for (const socket of sockets) socket.destroy();
        await store.close();
      }
    });
  }
});
