/**
 * The HTTP layer and the CDN (issue 32, item 2): `cdnTagHeader` emits the tag field each CDN
 * reads, within its documented bounds (what is left out is counted), and `purge()` by URL and by
 * tag reaches the cache's forwarders.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cloudflarePurge, webhookPurge } from '../../src/cdn/index.ts';
import { withCache, type CachedHandler } from '../../src/http/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { cloudflareApi, fakeApi, type FakeApi } from './fake-apis.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** A handler whose origin answers with `headers`, cached on `cache`, with `cdnTagHeader`. */
function pages(cache: Cache, cdnTagHeader: 'cloudflare' | 'fastly' | 'vercel', headers: Record<string, string>, tags?: string[]): CachedHandler {
  const handler = withCache(async () => new Response('page', { headers: { 'cache-control': 'max-age=60', ...headers } }), { cache, cdnTagHeader, ...(tags ? { tags } : {}) });
  open.push(handler);
  return handler;
}

function cache(cdn: Parameters<typeof createCache>[0]['cdn'] = undefined): Cache {
  const made = createCache({ store: memoryStore(), logger: false, ...(cdn ? { cdn } : {}) });
  open.push(made);
  return made;
}

describe('cdnTagHeader', () => {
  it('cloudflare: Cache-Tag from the stored tags, on the miss and on hits, the origin’s own replaced', async () => {
    const engine = cache();
    const handler = pages(engine, 'cloudflare', { 'cache-tag': 'products, product:1', 'surrogate-key': 'shoes' }, ['site']);
    const miss = await handler(new Request('http://localhost/a'));
    await miss.text();
    await handler.idle();
    const hit = await handler(new Request('http://localhost/a'));
    assert.match(hit.headers.get('cache-status') ?? '', /hit/);
    for (const response of [miss, hit]) assert.equal(response.headers.get('cache-tag'), 'products,product:1,shoes,site');
    assert.equal(engine.stats().cdnTagsDropped, 0);
  });

  it('fastly: Surrogate-Key space-separated; a key past 1,024 bytes is dropped and counted', async () => {
    const engine = cache();
    const long = 'k'.repeat(1025);
    const handler = pages(engine, 'fastly', { 'surrogate-key': `products ${long} product:1` });
    await (await handler(new Request('http://localhost/a'))).text();
    await handler.idle();
    const hit = await handler(new Request('http://localhost/a'));
    assert.equal(hit.headers.get('surrogate-key'), 'products product:1');
    assert.equal(engine.stats().cdnTagsDropped, 2, 'once on the miss, once on the hit');
  });

  it('vercel: Vercel-Cache-Tag within 128 tags of at most 256 characters; a tag with a space is dropped', async () => {
    const engine = cache();
    const tags = [...Array.from({ length: 60 }, (_, i) => `t${i}`), 'with space', 'x'.repeat(257)];
    const handler = pages(engine, 'vercel', {}, tags);
    const response = await handler(new Request('http://localhost/a'));
    assert.equal(response.headers.get('vercel-cache-tag'), tags.slice(0, 60).join(','));
    assert.equal(engine.stats().cdnTagsDropped, 2);
  });

  it('cloudflare: a field never longer than 16 KB, whatever the tags', async () => {
    const engine = cache();
    const tags = Array.from({ length: 64 }, (_, i) => `${String(i).padStart(2, '0')}${'t'.repeat(498)}`);
    const response = await pages(engine, 'cloudflare', {}, tags)(new Request('http://localhost/a'));
    const field = response.headers.get('cache-tag') ?? '';
    assert.ok(field.length <= 16 * 1024, `${field.length} bytes`);
    assert.equal(field.split(',').length, 32);
    assert.equal(engine.stats().cdnTagsDropped, 32);
  });

  it('is refused when it names no CDN it knows', () => {
    assert.throws(() => withCache(async () => new Response('x'), { store: memoryStore(), cdnTagHeader: 'akamai' as 'fastly' }), /"cdnTagHeader" must be one of cloudflare, fastly, vercel/);
  });

  it('is off by default: the origin’s fields pass as they are', async () => {
    const engine = cache();
    const handler = withCache(async () => new Response('x', { headers: { 'cache-control': 'max-age=60', 'cache-tag': 'a, b' } }), { cache: engine });
    open.push(handler);
    const response = await handler(new Request('http://localhost/a'));
    assert.equal(response.headers.get('cache-tag'), 'a, b');
    assert.equal(response.headers.get('surrogate-key'), null);
  });
});

describe('purge() forwards to the CDN', () => {
  it('by URL as Cloudflare files, by tag as tags', async () => {
    const server: FakeApi = await cloudflareApi('zone1', 'token-1');
    open.push(server);
    const engine = cache([cloudflarePurge({ zoneId: 'zone1', token: 'token-1', apiBase: `${server.base}/client/v4` })]);
    const handler = pages(engine, 'cloudflare', { 'cache-tag': 'products' });
    await handler.purge({ url: 'http://localhost/a' });
    await engine.idle();
    await handler.purge({ tag: 'products' });
    await engine.idle();
    assert.deepEqual(
      server.received.map((request) => JSON.parse(request.body)),
      [{ files: ['http://localhost/a'] }, { tags: ['products'] }],
    );
    assert.equal(engine.stats().cdnSent, 2);
  });

  it('several URLs and tags at once reach a webhook in one request', async () => {
    const server = await fakeApi(() => ({ status: 200 }));
    open.push(server);
    const engine = cache([webhookPurge({ url: server.base })]);
    const handler = pages(engine, 'cloudflare', {});
    await handler.purge({ urls: ['http://localhost/a', 'http://localhost/b'], tags: ['products'] });
    await engine.idle();
    assert.equal(server.received.length, 1);
    assert.deepEqual(JSON.parse(server.received[0]!.body), { tags: ['products'], urls: ['http://localhost/a', 'http://localhost/b'] });
  });
});
