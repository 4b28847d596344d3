/**
 * Purging is immediate (issue 10, item 8): once `purge` resolves, no request gets the purged
 * response, whether its store write was still running or its forward still had joiners.
 */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { numbered, ownCacheStatus, SECOND, type RunningTarget, type ScenarioFn } from './harness.ts';

export function purgeScenarios(scenario: ScenarioFn): void {
  scenario('purge right after a response was served: the next request never gets the purged body', {}, async ({ origin, cache }) => {
    origin.on('/tagged', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60', 'cache-tag': 'news' }));
    for (const [round, target] of [
      [1, { url: '' }],
      [2, { tag: 'news' }],
      [3, { url: '' }],
    ] as const) {
      const first = await cache.fetch('/tagged');
      const url = first.url;
      assert.equal(await first.text(), `v${round * 2 - 1}`);
      // No idle(): the store write may still be running, as with a real client.
      await cache.purge('tag' in target ? target : { url });
      const next = await cache.fetch('/tagged');
      const cs = ownCacheStatus(next.headers.get('cache-status'));
      assert.equal(await next.text(), `v${round * 2}`, `round ${round}: ${cs}`);
      assert.doesNotMatch(cs, /collapsed|hit/, `round ${round}`);
      await cache.idle();
      await cache.purge({ tag: 'news' });
    }
  });

  scenario('purge while the origin is still sending: later requests do not join that forward', {}, async ({ origin, cache }) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const enc = new TextEncoder();
    origin.on('/slow', (_, k) =>
      k > 1
        ? reply(`v${k}`, { 'cache-control': 'max-age=60' })
        : new Response(
            new ReadableStream<Uint8Array>({
              async start(controller) {
                controller.enqueue(enc.encode('old;'));
                await released;
                controller.enqueue(enc.encode('body'));
                controller.close();
              },
            }),
            { headers: { 'cache-control': 'max-age=60' } },
          ),
    );
    const first = await cache.fetch('/slow');
    const reader = first.body!.getReader();
    await reader.read();
    assert.equal(await cache.purge({ url: first.url }), 0, 'nothing stored yet');
    const next = await cache.fetch('/slow');
    assert.equal(await next.text(), 'v2');
    assert.doesNotMatch(ownCacheStatus(next.headers.get('cache-status')), /collapsed/);
    release();
    while (!(await reader.read()).done) {
      /* drain */
    }
    await cache.idle();
    const after = await cache.fetch('/slow');
    assert.equal(await after.text(), 'v2', 'the purged forward did not store its body after the purge');
    assert.equal(origin.count('/slow'), 2);
  });

  scenario('soft purge of a URL: the stored response is revalidated, and a 304 refreshes it', {}, async ({ origin, clock, get, cache }) => {
    origin.on('/soft', (req, k) =>
      req.headers.get('if-none-match') === '"s1"' ? reply(null, { etag: '"s1"', 'cache-control': 'max-age=100' }, 304) : reply(`body${k}`, { etag: '"s1"', 'cache-control': 'max-age=100' }),
    );
    const url = await fetchedUrl(cache, '/soft');
    clock.advance(10 * SECOND);
    assert.equal(await cache.purge({ urls: [url], soft: true }), 1);
    const revalidated = await get('/soft');
    assert.equal(revalidated.body, 'body1');
    assert.match(revalidated.cs, /fwd=stale; fwd-status=304/);
    assert.equal(origin.seen[1]!.headers.get('if-none-match'), '"s1"');
    const hit = await get('/soft');
    assert.match(hit.cs, /^cachette; hit/);
    assert.equal(origin.count('/soft'), 2);
    assert.equal(await cache.purge({ url: new URL('/none', url).href, soft: true }), 0);
  });

  scenario('soft purge of a URL within stale-while-revalidate: served stale while one revalidation runs', {}, async ({ origin, get, cache }) => {
    origin.on('/swr', numbered({ 'cache-control': 'max-age=100, stale-while-revalidate=60' }));
    await cache.purge({ urls: [await fetchedUrl(cache, '/swr')], soft: true });
    const stale = await get('/swr');
    assert.equal(stale.body, 'v1');
    assert.match(stale.cs, /^cachette; hit; ttl=-/, 'served stale (its revalidation runs in the background)');
    const fresh = await get('/swr');
    assert.equal(fresh.body, 'v2');
    assert.equal(origin.count('/swr'), 2);
  });

  scenario('soft purge of a varying URL marks every variant, and each is revalidated with its own validator', {}, async ({ origin, get, cache }) => {
    origin.on('/soft-vary', (req) => {
      const flavour = req.headers.get('x-flavour') ?? 'plain';
      const headers = { etag: `"${flavour}"`, vary: 'x-flavour', 'cache-control': 'max-age=100' };
      return req.headers.get('if-none-match') === headers.etag ? reply(null, headers, 304) : reply(flavour, headers);
    });
    const url = await fetchedUrl(cache, '/soft-vary');
    assert.equal((await get('/soft-vary', { headers: { 'x-flavour': 'sweet' } })).body, 'sweet');
    assert.equal(await cache.purge({ url, soft: true }), 2);
    for (const [flavour, init] of [
      ['plain', {}],
      ['sweet', { headers: { 'x-flavour': 'sweet' } }],
    ] as const) {
      const revalidated = await get('/soft-vary', init);
      assert.equal(revalidated.body, flavour);
      assert.match(revalidated.cs, /fwd=stale; fwd-status=304/, flavour);
      assert.equal(origin.seen.at(-1)!.headers.get('if-none-match'), `"${flavour}"`);
      assert.match((await get('/soft-vary', init)).cs, /^cachette; hit; ttl=\d/, flavour);
    }
    assert.equal(origin.count('/soft-vary'), 4);
  });

  // Issue 32, item 4: a soft purge by tag stales what carries the tag, as a soft purge by URL does.
  scenario('soft purge of a tag: the stored response is revalidated, and a 304 refreshes it', {}, async ({ origin, get, cache }) => {
    origin.on('/tag-soft', (req, k) => {
      const headers = { etag: '"t1"', 'cache-control': 'max-age=100', 'cache-tag': 'soft-news' };
      return req.headers.get('if-none-match') === '"t1"' ? reply(null, headers, 304) : reply(`body${k}`, headers);
    });
    await fetchedUrl(cache, '/tag-soft');
    assert.equal(await cache.purge({ tag: 'soft-news', soft: true }), 1);
    const revalidated = await get('/tag-soft');
    assert.equal(revalidated.body, 'body1');
    assert.match(revalidated.cs, /fwd=stale; fwd-status=304/);
    assert.equal(origin.seen[1]!.headers.get('if-none-match'), '"t1"', 'a conditional request, not a full refetch');
    const hit = await get('/tag-soft');
    assert.equal(hit.body, 'body1');
    assert.match(hit.cs, /^cachette; hit; ttl=\d/, 'the 304 made the stored copy fresh again');
    assert.equal(origin.count('/tag-soft'), 2);
  });

  scenario('soft purge of a tag within stale-while-revalidate: served stale once while one revalidation runs', {}, async ({ origin, get, cache }) => {
    origin.on('/tag-swr', numbered({ 'cache-control': 'max-age=100, stale-while-revalidate=60', 'cache-tag': 'soft-swr' }));
    await fetchedUrl(cache, '/tag-swr');
    await cache.purge({ tag: 'soft-swr', soft: true });
    const stale = await get('/tag-swr');
    assert.equal(stale.body, 'v1');
    assert.match(stale.cs, /^cachette; hit; ttl=-/, 'served stale (its revalidation runs in the background)');
    const fresh = await get('/tag-swr');
    assert.equal(fresh.body, 'v2');
    assert.match(fresh.cs, /^cachette; hit; ttl=\d/);
    assert.equal(origin.count('/tag-swr'), 2);
  });

  scenario('purge takes several URLs and tags at once, and refuses what it cannot act on', {}, async ({ origin, get, cache }) => {
    origin.on('/m1', numbered({ 'cache-control': 'max-age=60', 'cache-tag': 'm' }));
    origin.on('/m2', numbered({ 'cache-control': 'max-age=60' }));
    await get('/m1');
    assert.equal(await cache.purge({ urls: [await fetchedUrl(cache, '/m2')], tags: ['m'] }), 2);
    assert.equal((await get('/m1')).body, 'v2');
    assert.equal((await get('/m2')).body, 'v2');
    await assert.rejects(cache.purge({ urls: ['not a url'] }), TypeError);
    await assert.rejects(cache.purge({ urls: [] }), TypeError);
    await assert.rejects(cache.purge({ tag: 'm', soft: 'yes' } as unknown as { tag: string }), /"soft" must be a boolean/);
    await assert.rejects(cache.purge({ tag: 'm', sfot: true } as unknown as { tag: string }), /unknown option "sfot"/);
  });
}

/** The URL the cache saw for `path` (its entry's), after fetching it once and letting its store write land. */
async function fetchedUrl(cache: RunningTarget, path: string): Promise<string> {
  const res = await cache.fetch(path);
  await res.text();
  await cache.idle();
  return res.url;
}
