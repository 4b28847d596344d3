/**
 * The behaviour of cachette/next's handlers that holds over every store, run against process
 * memory (handlers.test.ts) and a real redis-server (handlers-valkey.test.ts). Two "instances" of
 * an app are two sets of handlers, each over its own store object on one backing store: one
 * memory store shared by both, or two Valkey connections to one server, as two `next start`
 * processes over one Redis.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'vitest';
import { createCacheHandler, createIncrementalCacheHandler } from '../../runtimes/native/next.ts';
import { createCache } from '../../src/index.ts';
import type { NextCacheOptions } from '../../src/next/index.ts';
import type { Store } from '../../src/store/types.ts';
import { acrossBuilds } from './builds-suite.ts';
import { appPage, brokenStream, chunked, entry, pageContext, pageSet, text } from './handler-fixtures.ts';

/** One backing store for one test: `connect()` gives each instance its store over it. */
export interface SuiteBacking {
  connect(): Store;
  close(): Promise<void>;
}

let run = 0;

/** Runs the suite with a fresh backing from `backing()` for each test. */
export function handlerSuite(name: string, backing: () => SuiteBacking): void {
  let current: SuiteBacking | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  /** Two instances of an app over one backing store, under a prefix of this test's own. */
  function instances(options: Omit<NextCacheOptions, 'store' | 'cache'> = {}) {
    current = backing();
    const shared = current;
    const prefix = `next-suite-${process.pid}-${++run}`;
    const make = (own: Omit<NextCacheOptions, 'store' | 'cache'> = {}) => {
      const all = { prefix, writeFence: 0, logger: false as const, ...options, ...own };
      const store = shared.connect();
      return { store, useCache: createCacheHandler({ store, ...all }), Incremental: createIncrementalCacheHandler({ store, ...all }) };
    };
    return { prefix, make, a: make(), b: make() };
  }

  acrossBuilds(name, instances);

  describe(`cachette/next over ${name}: "use cache" entries`, () => {
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
      let resolve!: (value: ReturnType<typeof entry>) => void;
      const writing = a.useCache.set('key', new Promise((r) => (resolve = r)));
      const reading = a.useCache.get('key', []);
      resolve(entry('late'));
      await writing;
      assert.equal(await text(await reading), 'late');
    });

    it('misses on every instance once a tag the entry records is revalidated on one (updateTag, or a profile shorter than a day)', async () => {
      const { a, b } = instances();
      await a.useCache.set('key', Promise.resolve(entry('v1', { tags: ['posts'] })));
      assert.equal(await text(await b.useCache.get('key', [])), 'v1');
      await b.useCache.updateTags(['posts']);
      assert.equal(await a.useCache.get('key', []), undefined);
      await a.useCache.set('key', Promise.resolve(entry('v2', { tags: ['posts'] })));
      assert.equal(await text(await b.useCache.get('key', [])), 'v2');
      await b.useCache.updateTags(['posts'], { expire: 3600 });
      assert.equal(await a.useCache.get('key', []), undefined);
      assert.equal(await a.useCache.getExpiration(['posts']), Infinity);
    });

    it('checks the soft tags a read is given against revalidatePath on every instance, whichever page stored the entry', async () => {
      const { a, b } = instances();
      const blog = ['_N_T_/layout', '_N_T_/blog'];
      assert.equal(await a.useCache.get('key', blog), undefined);
      await a.useCache.set('key', Promise.resolve(entry('v1', { tags: ['posts'] })));
      const hit = await b.useCache.get('key', ['_N_T_/other']);
      assert.deepEqual(hit?.tags, ['posts'], 'soft tags are not the entry’s own tags');
      await b.useCache.updateTags(['_N_T_/other']); // revalidatePath of another page that reads the entry
      assert.equal(await a.useCache.get('key', ['_N_T_/other']), undefined, 'the other page misses');
      assert.equal(await text(await a.useCache.get('key', blog)), 'v1', 'the page that stored it is not revalidated');
      await b.useCache.updateTags(['_N_T_/blog']);
      assert.equal(await a.useCache.get('key', blog), undefined);
      await a.useCache.set('key', Promise.resolve(entry('v2', { tags: ['posts'] })));
      assert.equal(await text(await b.useCache.get('key', blog)), 'v2', 'an entry begun after the revalidation is served');
    });

    it('two renders of a cold page in one instance: the second write is reached by revalidatePath too (issue 27, item 5)', async () => {
      const { a, b } = instances();
      const soft = ['_N_T_/layout', '_N_T_/blog'];
      assert.equal(await a.useCache.get('key', soft), undefined);
      assert.equal(await a.useCache.get('key', soft), undefined);
      await a.useCache.set('key', Promise.resolve(entry('first')));
      await a.useCache.set('key', Promise.resolve(entry('second')));
      assert.equal(await text(await b.useCache.get('key', soft)), 'second');
      await b.useCache.updateTags(['_N_T_/blog']);
      assert.equal(await a.useCache.get('key', soft), undefined);
      assert.equal(await b.useCache.getExpiration(soft), Infinity, 'the handler checks soft tags in get, as Infinity tells Next');
    });

    it('a page whose read and write have more than 4,096 other keys read in between is reached by revalidatePath (issue 27, item 5)', async () => {
      const { a, b } = instances();
      const soft = ['_N_T_/layout', '_N_T_/blog'];
      assert.equal(await a.useCache.get('key', soft), undefined);
      await Promise.all(Array.from({ length: 4100 }, (_, i) => a.useCache.get(`other-${i}`, ['_N_T_/layout', `_N_T_/page-${i}`])));
      await a.useCache.set('key', Promise.resolve(entry('v')));
      await b.useCache.updateTags(['_N_T_/blog']);
      assert.equal(await a.useCache.get('key', soft), undefined);
    });

    it('stores an entry with Next’s 128 tags and more: each of them revalidates it, those its generations record and those past them (issue 27)', async () => {
      const { a, b } = instances();
      const tags = Array.from({ length: 200 }, (_, i) => `t${i}`);
      for (const revalidated of ['t3', 't127', 't199']) {
        await a.useCache.set('many', Promise.resolve(entry('v', { tags })));
        assert.deepEqual((await b.useCache.get('many', []))?.tags, tags, `stored again before ${revalidated}`);
        await b.useCache.updateTags([revalidated]);
        assert.equal(await a.useCache.get('many', []), undefined, `${revalidated} revalidates it`);
      }
    });

    it('stores no dynamic entry (expire 0) and deletes on the eviction mark (expire < 0), cancelling their streams', async () => {
      const { a, b } = instances();
      const dynamic = { cancelled: false };
      await a.useCache.set('dynamic', Promise.resolve(entry('x', { expire: 0, value: chunked(['x'], dynamic) })));
      assert.equal(await b.useCache.get('dynamic', []), undefined);
      assert.equal(dynamic.cancelled, true);
      await a.useCache.set('evicted', Promise.resolve(entry('kept')));
      assert.equal(await text(await b.useCache.get('evicted', [])), 'kept');
      await a.useCache.set('evicted', Promise.resolve(entry('mark', { expire: -1 })));
      assert.equal(await b.useCache.get('evicted', []), undefined);
    });

    it('stores nothing for a generation that failed, a stream that errors halfway or one past maxValueBytes', async () => {
      const { a, b } = instances({ maxValueBytes: 8 });
      await a.useCache.set('rejected', Promise.reject(new Error('render failed')));
      await a.useCache.set('broken', Promise.resolve(entry('', { value: brokenStream('half') })));
      const big = { cancelled: false };
      await a.useCache.set('big', Promise.resolve(entry('', { value: chunked(['12345', '67890', 'never read'], big) })));
      for (const key of ['rejected', 'broken', 'big']) assert.equal(await b.useCache.get(key, []), undefined, key);
      assert.equal(big.cancelled, true, 'the rest of a stream too large to store is cancelled');
    });

    it('after updateTag on one instance, no instance stores an entry of its tags until the fence is committed', async () => {
      const { make, b: other } = instances();
      const writer = make({ writeFence: '5s' });
      await writer.useCache.updateTags(['cart']); // no durations: updateTag, expiring at once
      await other.useCache.set('during', Promise.resolve(entry('read before the write', { tags: ['cart'] })));
      assert.equal(await other.useCache.get('during', []), undefined);
      await other.useCache.set('untagged', Promise.resolve(entry('unrelated', { tags: ['other'] })));
      assert.equal(await text(await other.useCache.get('untagged', [])), 'unrelated');
      // A revalidation with a profile is no write fence: entries are stored again at once.
      await other.useCache.updateTags(['feed'], { expire: 3600 });
      await other.useCache.set('feed', Promise.resolve(entry('new', { tags: ['feed'] })));
      assert.equal(await text(await writer.useCache.get('feed', [])), 'new');
    });

    it('does not store an entry whose generation began before this process revalidated one of its tags', async () => {
      const { a, b } = instances();
      const began = performance.timeOrigin + performance.now() - 1000;
      await a.useCache.updateTags(['posts']);
      await a.useCache.set('raced', Promise.resolve(entry('old rows', { tags: ['posts'], timestamp: began })));
      assert.equal(await b.useCache.get('raced', []), undefined);
      await a.useCache.set('later', Promise.resolve(entry('new rows', { tags: ['posts'] })));
      assert.equal(await text(await b.useCache.get('later', [])), 'new rows');
    });

    it('reads a key of any length (long keys are stored by their digest)', async () => {
      const { a, b } = instances();
      const key = JSON.stringify(['fn', ['x'.repeat(10_000)]]);
      await a.useCache.set(key, Promise.resolve(entry('long')));
      assert.equal(await text(await b.useCache.get(key, [])), 'long');
      assert.equal(await b.useCache.get(`${key}!`, []), undefined);
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
  });

  describe(`cachette/next over ${name}: the incremental cache`, () => {
    it('shares a page between instances, with its bytes (as Buffers), segments and lifetime', async () => {
      const { a, b } = instances();
      await new a.Incremental().set('/index', appPage('<p>hi</p>', '_N_T_/layout,_N_T_/,greeting'), pageSet);
      const read = await new b.Incremental().get('/index', pageContext);
      assert.ok(read);
      assert.equal(read.value?.html, '<p>hi</p>');
      assert.ok(Buffer.isBuffer(read.value?.rscData));
      assert.deepEqual(read.value?.rscData, Buffer.from('rsc:<p>hi</p>'));
      assert.ok([...(read.value!.segmentData as Map<string, Uint8Array>).values()].every((bytes) => Buffer.isBuffer(bytes)));
      assert.deepEqual(read.value?.segmentData, new Map([['/_index', Buffer.from('segment')]]));
      assert.deepEqual(read.cacheControl, { revalidate: 3600, expire: 86_400 });
      assert.ok(Math.abs(read.lastModified - Date.now()) < 60_000);
    });

    it('misses on every instance once a tag of the page (from x-next-cache-tags) is revalidated, without a profile or with one shorter than a day', async () => {
      const { a, b } = instances();
      await new a.Incremental().set('/index', appPage('v1', '_N_T_/,greeting'), pageSet);
      await new b.Incremental().revalidateTag('greeting');
      assert.equal(await new a.Incremental().get('/index', pageContext), null);
      await new a.Incremental().set('/index', appPage('v2', '_N_T_/,greeting'), pageSet);
      assert.equal((await new b.Incremental().get('/index', pageContext))?.value?.html, 'v2');
      await new b.Incremental().revalidateTag(['_N_T_/'], { expire: 3600 }); // a profile shorter than a day: at once too
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

    it('a fetch stored while another page read it is reached by revalidatePath of either page (issue 27, item 5)', async () => {
      const { a, b } = instances();
      const fetched = { kind: 'FETCH', data: { headers: {}, body: 'e30=', url: 'https://api.example/x', status: 200 }, revalidate: 60, tags: ['api'] };
      const onPage = (page: string) => ({ kind: 'FETCH', tags: ['api'], softTags: ['_N_T_/layout', `_N_T_/${page}`] });
      assert.equal(await new a.Incremental().get('fetch-key', onPage('a')), null);
      assert.equal(await new a.Incremental().get('fetch-key', onPage('b')), null); // page b renders meanwhile
      await new a.Incremental().set('fetch-key', fetched, { fetchCache: true, tags: ['api'] }); // page a's fetch ends
      await new b.Incremental().revalidateTag('_N_T_/a');
      assert.equal(await new a.Incremental().get('fetch-key', onPage('a')), null);
      assert.equal((await new a.Incremental().get('fetch-key', onPage('b')))?.value?.kind, 'FETCH', 'page b is not revalidated');
      await new a.Incremental().revalidateTag('_N_T_/b');
      assert.equal(await new b.Incremental().get('fetch-key', onPage('b')), null);
    });

    it('stores a page with more tags than its generations record, each of them revalidating it (issue 27)', async () => {
      const { a, b } = instances();
      const tags = ['_N_T_/layout', '_N_T_/', ...Array.from({ length: 140 }, (_, i) => `t${i}`)];
      await new a.Incremental().set('/index', appPage('v1', tags.join(',')), pageSet);
      assert.equal((await new b.Incremental().get('/index', pageContext))?.value?.html, 'v1');
      await new b.Incremental().revalidateTag('t139');
      assert.equal(await new a.Incremental().get('/index', pageContext), null);
    });

    it('deletes on a null value, and takes a malformed or foreign entry for a miss', async () => {
      const { a, b, prefix } = instances();
      const foreign = createCache({ store: a.store, prefix, logger: false, closeStore: false });
      await new a.Incremental().set('/index', appPage('v1', ''), pageSet);
      await new a.Incremental().set('/index', null, pageSet);
      assert.equal(await new b.Incremental().get('/index', pageContext), null);
      for (const value of [{ kind: 'APP_PAGE', html: 42 }, { kind: 'IMAGE', buffer: Buffer.from('x') }, 'text', { kind: 'PAGES', html: '<p/>', pageData: null }]) {
        await foreign.set('next/isr:/bad', { lastModified: Date.now(), value, tags: [] });
        assert.equal(await new b.Incremental().get('/bad', { kind: 'PAGES' }), null, JSON.stringify(value));
      }
    });

    it('is one set of tags with the "use cache" handler: a revalidateTag through either reaches both', async () => {
      const { a, b } = instances();
      await a.useCache.set('key', Promise.resolve(entry('v', { tags: ['shared'] })));
      await new a.Incremental().set('/index', appPage('v', 'shared'), pageSet);
      await new b.Incremental().revalidateTag('shared');
      assert.equal(await a.useCache.get('key', []), undefined);
      assert.equal(await new a.Incremental().get('/index', pageContext), null);
    });
  });
}
