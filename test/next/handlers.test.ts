/**
 * cachette/next's handlers against Next's contracts (next/dist/server/lib/cache-handlers/types.d.ts
 * and the incremental cache's CacheHandler), without Next: entries as Next hands them over, two
 * "instances" as two handlers over one store, and the failures Next must never see. The real
 * Next server runs them in next.test.ts.
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
import { createCache, type CacheLogger } from '../../src/index.ts';
import { createCacheHandler, createIncrementalCacheHandler, type NextCacheOptions, type UseCacheEntry } from '../../src/next/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../support/fake-clock.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A logger that keeps what it is told. */
function recordingLogger(): CacheLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (line) => void lines.push(line), warn: (line) => void lines.push(line) };
}

/** A stream of `chunks`, noting whether it was cancelled. */
function chunked(chunks: readonly string[], state: { cancelled?: boolean } = {}): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(encoder.encode(chunks[next++]));
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
}

/** An entry as Next's "use cache" wrapper hands it to `set`. */
function entry(body: string | readonly string[], overrides: Partial<UseCacheEntry> = {}): UseCacheEntry {
  return { value: chunked(typeof body === 'string' ? [body] : body), tags: [], stale: 300, timestamp: performance.timeOrigin + performance.now(), expire: 3600, revalidate: 900, ...overrides };
}

async function text(entry: UseCacheEntry | undefined): Promise<string | undefined> {
  return entry && decoder.decode(await new Response(entry.value).arrayBuffer());
}

/** Two instances of an app: two handlers of each kind over one store, as two servers over one Redis. */
function instances(options: NextCacheOptions = {}) {
  const store = memoryStore();
  const make = () => ({
    useCache: createCacheHandler({ store, writeFence: 0, logger: false, ...options }),
    Incremental: createIncrementalCacheHandler({ store, writeFence: 0, logger: false, ...options }),
  });
  return { store, a: make(), b: make() };
}

describe('createCacheHandler: "use cache" entries', () => {
  it('stores what the stream delivered and gives every read a new stream of it, on any instance', async () => {
    const { a, b } = instances();
    const created = entry(['<div>', 'hello', '</div>'], { tags: ['greeting'] });
    await a.useCache.set('key', Promise.resolve(created));
    const [first, second] = [await b.useCache.get('key', []), await b.useCache.get('key', [])];
    assert.equal(await text(first), '<div>hello</div>');
    assert.equal(await text(second), '<div>hello</div>');
    assert.notEqual(first!.value, second!.value);
    const { value: _value, ...metadata } = first!;
    assert.deepEqual(metadata, { tags: ['greeting'], stale: 300, timestamp: created.timestamp, expire: 3600, revalidate: 900 });
  });

  it('makes a read wait for a write of the same key still in progress', async () => {
    const { a } = instances();
    let resolve!: (entry: UseCacheEntry) => void;
    const writing = a.useCache.set('key', new Promise((r) => (resolve = r)));
    const reading = a.useCache.get('key', []);
    resolve(entry('late'));
    await writing;
    assert.equal(await text(await reading), 'late');
  });

  it('misses on every instance once a tag the entry records is revalidated there', async () => {
    const { a, b } = instances();
    await a.useCache.set('key', Promise.resolve(entry('v1', { tags: ['posts'] })));
    assert.equal(await text(await a.useCache.get('key', [])), 'v1');
    await b.useCache.updateTags(['posts']);
    assert.equal(await a.useCache.get('key', []), undefined);
    assert.equal(await a.useCache.getExpiration(['posts']), Infinity);
  });

  it('stores an entry under the soft tags it was read under, so that revalidatePath reaches it', async () => {
    const { a, b } = instances();
    assert.equal(await a.useCache.get('key', ['_N_T_/layout', '_N_T_/blog']), undefined);
    await a.useCache.set('key', Promise.resolve(entry('v1', { tags: ['posts'] })));
    const hit = await b.useCache.get('key', ['_N_T_/other']);
    assert.deepEqual(hit?.tags, ['posts'], 'soft tags are not the entry’s own tags');
    await b.useCache.updateTags(['_N_T_/blog']);
    assert.equal(await a.useCache.get('key', ['_N_T_/blog']), undefined);
  });

  it('stores no dynamic entry (expire 0) and deletes on the eviction mark (expire < 0), cancelling their streams', async () => {
    const { a } = instances();
    const dynamic = { cancelled: false };
    await a.useCache.set('dynamic', Promise.resolve(entry('x', { expire: 0, value: chunked(['x'], dynamic) })));
    assert.equal(await a.useCache.get('dynamic', []), undefined);
    assert.equal(dynamic.cancelled, true);
    await a.useCache.set('evicted', Promise.resolve(entry('kept')));
    assert.equal(await text(await a.useCache.get('evicted', [])), 'kept');
    await a.useCache.set('evicted', Promise.resolve(entry('mark', { expire: -1 })));
    assert.equal(await a.useCache.get('evicted', []), undefined);
  });

  it('stores nothing for a generation that failed, a stream that errors halfway or one past maxValueBytes', async () => {
    const { a } = instances({ maxValueBytes: 8 });
    await a.useCache.set('rejected', Promise.reject(new Error('render failed')));
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('half'));
        controller.error(new Error('connection reset'));
      },
    });
    await a.useCache.set('broken', Promise.resolve(entry('', { value: broken })));
    const big = { cancelled: false };
    await a.useCache.set('big', Promise.resolve(entry('', { value: chunked(['12345', '67890', 'never read'], big) })));
    for (const key of ['rejected', 'broken', 'big']) assert.equal(await a.useCache.get(key, []), undefined, key);
    assert.equal(big.cancelled, true, 'the rest of a stream too large to store is cancelled');
  });

  it('after updateTag, stores no entry of its tags on any instance until the fence is committed', async () => {
    const store = memoryStore();
    const writer = createCacheHandler({ store, writeFence: '1h', logger: false });
    const other = createCacheHandler({ store, writeFence: 0, logger: false });
    await writer.updateTags(['cart']); // no durations: updateTag, expiring at once
    await other.set('during', Promise.resolve(entry('read before the write', { tags: ['cart'] })));
    assert.equal(await other.get('during', []), undefined);
    await other.set('untagged', Promise.resolve(entry('unrelated', { tags: ['other'] })));
    assert.equal(await text(await other.get('untagged', [])), 'unrelated');
    // A revalidation with a profile is no write fence: entries are stored again at once.
    await other.updateTags(['feed'], { expire: 3600 });
    await other.set('feed', Promise.resolve(entry('new', { tags: ['feed'] })));
    assert.equal(await text(await other.get('feed', [])), 'new');
  });

  it('does not store an entry whose generation began before this process revalidated one of its tags', async () => {
    const { a } = instances();
    const began = performance.timeOrigin + performance.now() - 1000;
    await a.useCache.updateTags(['posts']);
    await a.useCache.set('raced', Promise.resolve(entry('old rows', { tags: ['posts'], timestamp: began })));
    assert.equal(await a.useCache.get('raced', []), undefined);
    await a.useCache.set('later', Promise.resolve(entry('new rows', { tags: ['posts'] })));
    assert.equal(await text(await a.useCache.get('later', [])), 'new rows');
  });

  it('serves but does not store an entry with more tags than an entry can record, and says so once', async () => {
    const logger = recordingLogger();
    const handler = createCacheHandler({ store: memoryStore(), logger });
    const tags = Array.from({ length: 65 }, (_, i) => `t${i}`);
    await handler.set('a', Promise.resolve(entry('x', { tags })));
    await handler.set('b', Promise.resolve(entry('x', { tags })));
    assert.equal(await handler.get('a', []), undefined);
    assert.equal(logger.lines.filter((line) => line.includes('65 tags')).length, 1);
  });

  it('reads a key of any length (long keys are stored by their digest)', async () => {
    const { a, b } = instances();
    const key = JSON.stringify(['fn', ['x'.repeat(10_000)]]);
    await a.useCache.set(key, Promise.resolve(entry('long')));
    assert.equal(await text(await b.useCache.get(key, [])), 'long');
    assert.equal(await b.useCache.get(`${key}!`, []), undefined);
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

  it('answers the calls of Next 15 (variadic getExpiration, expireTags, receiveExpiredTags)', async () => {
    const { a, b } = instances();
    await a.useCache.set('key', Promise.resolve(entry('v', { tags: ['x'] })));
    assert.equal(await a.useCache.getExpiration('x', 'y'), Infinity);
    await b.useCache.receiveExpiredTags('x');
    assert.equal(await text(await a.useCache.get('key', [])), 'v');
    await b.useCache.expireTags('x');
    assert.equal(await a.useCache.get('key', []), undefined);
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

  it('is the object Next 16 loads from cacheHandlers', () => {
    const handler: NextCacheHandler = createCacheHandler({ store: memoryStore() });
    assert.equal(typeof handler.refreshTags, 'function');
  });
});

/** A rendered App Router page as Next stores it: HTML, RSC bytes, segments, and its tags in a header. */
function appPage(html: string, tags: string) {
  return {
    kind: 'APP_PAGE',
    html,
    rscData: Buffer.from(`rsc:${html}`),
    segmentData: new Map([['/_index', Buffer.from('segment')]]),
    postponed: undefined,
    status: 200,
    headers: { 'x-next-cache-tags': tags, 'x-nextjs-stale-time': '300' },
  };
}

const pageContext = { kind: 'APP_PAGE', isRoutePPREnabled: true, isFallback: false };
const pageSet = { cacheControl: { revalidate: 3600, expire: 86_400 }, isRoutePPREnabled: true, isFallback: false };

describe('createIncrementalCacheHandler: pages, route handlers and fetch', () => {
  it('shares a page between instances, with its bytes, segments and lifetime', async () => {
    const store = memoryStore();
    const a = native.createIncrementalCacheHandler({ store, logger: false });
    const b = native.createIncrementalCacheHandler({ store, logger: false });
    await new a().set('/index', appPage('<p>hi</p>', '_N_T_/layout,_N_T_/,greeting'), pageSet);
    const read = await new b().get('/index', pageContext);
    assert.ok(read);
    assert.equal(read.value?.html, '<p>hi</p>');
    assert.ok(Buffer.isBuffer(read.value?.rscData), 'RSC bytes come back as a Buffer, from a store that keeps Uint8Arrays');
    assert.ok([...(read.value!.segmentData as Map<string, Uint8Array>).values()].every((bytes) => Buffer.isBuffer(bytes)));
    assert.deepEqual(read.value?.segmentData, new Map([['/_index', Buffer.from('segment')]]));
    assert.deepEqual(read.cacheControl, { revalidate: 3600, expire: 86_400 });
    assert.ok(Math.abs(read.lastModified - Date.now()) < 60_000);
  });

  it('misses on every instance once a tag of the page (from x-next-cache-tags) is revalidated, with or without a profile', async () => {
    const { a, b } = instances();
    await new a.Incremental().set('/index', appPage('v1', '_N_T_/,greeting'), pageSet);
    await new b.Incremental().revalidateTag('greeting');
    assert.equal(await new a.Incremental().get('/index', pageContext), null);
    await new a.Incremental().set('/index', appPage('v2', '_N_T_/,greeting'), pageSet);
    await new b.Incremental().revalidateTag(['_N_T_/'], { expire: 31_536_000 });
    assert.equal(await new a.Incremental().get('/index', pageContext), null);
  });

  it('checks a fetch against the tags of the call and the soft tags of the page it ran in', async () => {
    const { a, b } = instances();
    const fetched = { kind: 'FETCH', data: { headers: {}, body: 'e30=', url: 'https://api.example/x', status: 200 }, revalidate: 60, tags: ['api'] };
    const getContext = { kind: 'FETCH', tags: ['api'], softTags: ['_N_T_/blog'] };
    const setContext = { fetchCache: true, tags: ['api'] };
    assert.equal(await new a.Incremental().get('fetch-key', getContext), null);
    await new a.Incremental().set('fetch-key', fetched, setContext);
    assert.equal((await new b.Incremental().get('fetch-key', getContext))?.value?.kind, 'FETCH');
    assert.equal(await new b.Incremental().get('fetch-key', { ...getContext, tags: ['api', 'new'] }), null, 'a tag the entry did not record');
    assert.equal(await new b.Incremental().get('fetch-key', pageContext), null, 'a fetch read back under a page’s kind');
    await new b.Incremental().revalidateTag('_N_T_/blog');
    assert.equal(await new a.Incremental().get('fetch-key', getContext), null);
  });

  it('deletes on a null value, and takes a malformed or foreign entry for a miss', async () => {
    const shared = createCache({ store: memoryStore(), logger: false });
    const Incremental = createIncrementalCacheHandler({ cache: shared, logger: false });
    await new Incremental().set('/index', appPage('v1', ''), pageSet);
    await new Incremental().set('/index', null, pageSet);
    assert.equal(await new Incremental().get('/index', pageContext), null);
    for (const value of [{ kind: 'APP_PAGE', html: 42 }, { kind: 'IMAGE', buffer: Buffer.from('x') }, 'text', { kind: 'PAGES', html: '<p/>', pageData: null }]) {
      await shared.set('next/isr:/bad', { lastModified: Date.now(), value, tags: [] });
      assert.equal(await new Incremental().get('/bad', { kind: 'PAGES' }), null, JSON.stringify(value));
    }
  });

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
    assert.throws(() => createCacheHandler({ store, timeout: -1 }), RangeError);
    assert.throws(() => createCacheHandler({ store, l1: { consistency: 'sometimes' } } as unknown as NextCacheOptions), /l1.consistency/);
    assert.throws(() => createCacheHandler({ cache: {} as never }), /"cache" must be a cache/);
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
