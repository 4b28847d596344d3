/**
 * cachette/next across deploys and under soft revalidation, run by the handlers' suite
 * (handler-suite.ts) over process memory and over a real redis-server: two builds of one app are
 * two sets of handlers with their own `buildId` (and `version`) over one store, as the instances
 * of two deployments over one Redis during and after a deploy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { NextCacheOptions, NextIncrementalCacheHandlerClass, NextUseCacheHandler } from '../../src/next/index.ts';
import { appPage, entry, pageContext, pageSet, text } from './handler-fixtures.ts';

type Options = Omit<NextCacheOptions, 'store' | 'cache'>;
interface Instance {
  useCache: NextUseCacheHandler;
  Incremental: NextIncrementalCacheHandlerClass;
}
/** Two instances of an app over one backing store, and `make` for more (handler-suite.ts). */
type Instances = (options?: Options) => { make(own?: Options): Instance; a: Instance; b: Instance };

/** Next's `'max'` profile as `revalidateTag(tag, 'max')` hands it to the handlers. */
const MAX = { expire: 31_536_000 };
const fetched = (body: string) => ({ kind: 'FETCH', data: { headers: {}, body, url: 'https://api.example/posts', status: 200 }, revalidate: 60, tags: ['posts'] });
const fetchGet = { kind: 'FETCH', tags: ['posts'], softTags: ['_N_T_/blog'] };
const fetchSet = { fetchCache: true, tags: ['posts'] };
const now = () => performance.timeOrigin + performance.now();

export function acrossBuilds(name: string, instances: Instances): void {
  describe(`cachette/next over ${name}: across builds`, () => {
    it('a second build serves the data entries the first stored (counted), never its pages, and shares their tags', async () => {
      const { make } = instances();
      const first = make({ buildId: 'build-1' });
      await first.useCache.set('rows', Promise.resolve(entry('rows', { tags: ['posts'] })));
      await new first.Incremental().set('posts-fetch', fetched('v1'), fetchSet);
      await new first.Incremental().set('/blog', appPage('<p>build 1</p>', '_N_T_/blog,posts'), pageSet);
      const second = make({ buildId: 'build-2' });
      assert.equal(await text(await second.useCache.get('rows', [])), 'rows');
      assert.equal((await new second.Incremental().get('posts-fetch', fetchGet))?.value?.kind, 'FETCH');
      assert.equal(await new second.Incremental().get('/blog', pageContext), null, "a page names its build's scripts");
      assert.deepEqual(second.useCache.stats(), { fromOtherBuilds: 1, otherVersions: 0 });
      assert.deepEqual(second.Incremental.stats(), { fromOtherBuilds: 1, otherVersions: 0 });
      assert.equal(await text(await first.useCache.get('rows', [])), 'rows');
      assert.deepEqual(first.useCache.stats(), { fromOtherBuilds: 0, otherVersions: 0 }, 'its own entries are not counted');
      // One set of tags: a revalidation on the new build reaches the old build's page and the shared data.
      await new second.Incremental().revalidateTag('posts');
      assert.equal(await first.useCache.get('rows', []), undefined);
      assert.equal(await new first.Incremental().get('posts-fetch', fetchGet), null);
      assert.equal(await new first.Incremental().get('/blog', pageContext), null);
    });

    it('refuses a data entry stored under another version (or none), counted, and the new version replaces it', async () => {
      const { make } = instances();
      const legacy = make({ buildId: 'build-0' });
      const old = make({ buildId: 'build-1', version: 1 });
      await legacy.useCache.set('unversioned', Promise.resolve(entry('no version')));
      await old.useCache.set('rows', Promise.resolve(entry('shape 1')));
      await new old.Incremental().set('posts-fetch', fetched('v1'), fetchSet);
      const next = make({ buildId: 'build-2', version: 2 });
      assert.equal(await next.useCache.get('rows', []), undefined);
      assert.equal(await next.useCache.get('unversioned', []), undefined);
      assert.equal(await new next.Incremental().get('posts-fetch', fetchGet), null);
      assert.deepEqual(next.useCache.stats(), { fromOtherBuilds: 0, otherVersions: 2 });
      assert.deepEqual(next.Incremental.stats(), { fromOtherBuilds: 0, otherVersions: 1 });
      await next.useCache.set('rows', Promise.resolve(entry('shape 2')));
      assert.equal(await text(await next.useCache.get('rows', [])), 'shape 2');
      assert.equal(await old.useCache.get('rows', []), undefined, 'the old build refuses the new shape alike');
    });
  });

  describe(`cachette/next over ${name}: revalidateTag(tag, 'max') is stale-while-revalidate`, () => {
    it('a "use cache" entry is served stale (revalidate: -1) on every instance until it is regenerated, then fresh', async () => {
      const { a, b } = instances();
      await a.useCache.set('key', Promise.resolve(entry('v1', { tags: ['posts'] })));
      await b.useCache.updateTags(['posts'], MAX);
      const stale = await a.useCache.get('key', []);
      assert.equal(await text(stale), 'v1');
      assert.equal(stale?.revalidate, -1, 'Next serves it once more and regenerates it in the background');
      await a.useCache.set('key', Promise.resolve(entry('v2', { tags: ['posts'] })));
      const fresh = await b.useCache.get('key', []);
      assert.equal(await text(fresh), 'v2');
      assert.equal(fresh?.revalidate, 900);
    });

    it('a page is handed over as stale (past its revalidate, short of its expire), a fetch too, then fresh once stored again', async () => {
      const { a, b } = instances();
      await new a.Incremental().set('/blog', appPage('v1', '_N_T_/blog,posts'), pageSet);
      await new a.Incremental().set('posts-fetch', fetched('v1'), fetchSet);
      await new b.Incremental().revalidateTag('posts', MAX);
      const page = await new a.Incremental().get('/blog', pageContext);
      assert.equal(page?.value?.html, 'v1');
      const age = now() - page!.lastModified;
      assert.ok(age > pageSet.cacheControl.revalidate * 1000 && age < pageSet.cacheControl.expire * 1000, `age ${age} ms reads as stale, not expired`);
      const stale = await new a.Incremental().get('posts-fetch', fetchGet);
      assert.equal(stale?.value?.kind, 'FETCH');
      assert.ok(now() - stale!.lastModified > fetched('v1').revalidate * 1000);
      await new a.Incremental().set('/blog', appPage('v2', '_N_T_/blog,posts'), pageSet);
      await new a.Incremental().set('posts-fetch', fetched('v2'), fetchSet);
      const fresh = await new b.Incremental().get('/blog', pageContext);
      assert.equal(fresh?.value?.html, 'v2');
      assert.ok(now() - fresh!.lastModified < 60_000);
      const refetched = await new b.Incremental().get('posts-fetch', fetchGet);
      assert.equal((refetched?.value?.data as { body: string } | undefined)?.body, 'v2');
    });

    it('a page that never revalidates by time cannot be told stale, and is a miss', async () => {
      const { a, b } = instances();
      await new a.Incremental().set('/static', appPage('v1', 'posts'), { cacheControl: { revalidate: false, expire: undefined } });
      await new b.Incremental().revalidateTag('posts', MAX);
      assert.equal(await new a.Incremental().get('/static', pageContext), null);
    });
  });
}
