/**
 * cachette/cdn (issue 32, item 2): purges forwarded after committed writes and invalidations,
 * against local servers that speak each API's documented requests and errors over loopback.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { afterEach, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cloudflarePurge, fastlyPurge, vercelPurge, webhookPurge, type CdnPurger } from '../../src/cdn/index.ts';
import type { CacheEventMap } from '../../src/cache/events.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { CLOUDFLARE_PARTIAL, cloudflareApi, fakeApi, fastlyApi, vercelApi, type FakeApi } from './fake-apis.ts';

const TOKEN = 'cf-secret-token-0123456789';
const open: Array<FakeApi | Cache> = [];

afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function api(start: Promise<FakeApi>): Promise<FakeApi> {
  const started = await start;
  open.push(started);
  return started;
}

/** A cache forwarding to `cdn`, with quick retries, and the cdnFailed events it reports. */
function cacheWith(cdn: CdnPurger[], retry: { attempts?: number; baseDelay?: number } = {}): { cache: Cache; failures: Array<CacheEventMap['cdnFailed']> } {
  const cache = createCache({ store: memoryStore(), logger: false, cdn, cdnRetry: { attempts: retry.attempts ?? 3, baseDelay: retry.baseDelay ?? 5 } });
  open.push(cache);
  const failures: Array<CacheEventMap['cdnFailed']> = [];
  cache.events.addEventListener('cdnFailed', (event) => failures.push(event.detail));
  return { cache, failures };
}

const cloudflare = (server: FakeApi, token = TOKEN) => cloudflarePurge({ zoneId: 'zone1', token, apiBase: `${server.base}/client/v4` });

describe('cloudflarePurge', () => {
  it('sends a committed write’s tags once, with the bearer token, and nothing for an aborted one', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    const { cache } = cacheWith([cloudflare(server)]);
    const rolledBack = await cache.beginWrite(['orders']);
    await rolledBack.abort();
    await cache.idle();
    assert.equal(server.received.length, 0, 'an aborted write sends nothing');
    const write = await cache.beginWrite(['products', 'product:1']);
    assert.equal(server.received.length, 0, 'beginWrite alone sends nothing');
    await write.commit();
    await write.commit();
    await cache.idle();
    assert.equal(server.received.length, 1);
    assert.equal(server.received[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(JSON.parse(server.received[0]!.body), { tags: ['products', 'product:1'] });
    assert.deepEqual(pick(cache), { cdnSent: 1, cdnRetried: 0, cdnFailed: 0 });
  });

  it('arrives within one retry after a 5xx', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    server.faults.push({ status: 502, body: { success: false, errors: [{ code: 502, message: 'Bad gateway' }] } });
    const { cache, failures } = cacheWith([cloudflare(server)]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.equal(server.received.length, 2);
    assert.deepEqual(JSON.parse(server.received[1]!.body), { tags: ['products'] });
    assert.deepEqual(pick(cache), { cdnSent: 1, cdnRetried: 1, cdnFailed: 0 });
    assert.equal(failures.length, 0);
  });

  it('waits for a 429’s Retry-After before trying again', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    server.faults.push({ status: 429, headers: { 'retry-after': '1' }, body: { success: false, errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }] } });
    // A base delay far below a second: only Retry-After can account for the wait.
    const { cache } = cacheWith([cloudflare(server)], { baseDelay: 1 });
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.equal(server.received.length, 2);
    const waited = server.received[1]!.at - server.received[0]!.at;
    assert.ok(waited >= 950, `the retry came ${waited.toFixed(0)} ms after the 429, before its Retry-After of 1 s`);
    assert.deepEqual(pick(cache), { cdnSent: 1, cdnRetried: 1, cdnFailed: 0 });
  });

  it('reports success: false with its errors as a failure, not retried, without the token', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    server.faults.push(CLOUDFLARE_PARTIAL);
    const { cache, failures } = cacheWith([cloudflare(server)]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.equal(server.received.length, 1);
    assert.equal(failures.length, 1);
    const [failure] = failures;
    assert.equal(failure!.purger, 'cloudflare');
    assert.deepEqual(failure!.tags, ['products']);
    assert.equal(failure!.attempts, 1);
    assert.match(failure!.error.message, /1107 Purge by tags is not available/);
    assert.deepEqual(pick(cache), { cdnSent: 0, cdnRetried: 0, cdnFailed: 1 });
  });

  it('does not retry a 403, and never quotes the token', async () => {
    const server = await api(cloudflareApi('zone1', 'another-token'));
    const { cache, failures } = cacheWith([cloudflare(server)]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.equal(server.received.length, 1);
    assert.equal(failures[0]!.error.status, 403);
    assert.match(failures[0]!.error.message, /HTTP 403: 10000 Authentication error/);
    assert.ok(!JSON.stringify({ message: failures[0]!.error.message, stack: failures[0]!.error.stack }).includes(TOKEN));
  });

  it('gives up on a network error after its attempts, the token in no message', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    // A token that shows up in the URL too (the zone id is not secret, but a token put there would be).
    const base = server.base;
    await server.close();
    open.splice(open.indexOf(server), 1);
    const { cache, failures } = cacheWith([cloudflarePurge({ zoneId: TOKEN, token: TOKEN, apiBase: base })], { attempts: 2, baseDelay: 1 });
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.deepEqual(pick(cache), { cdnSent: 0, cdnRetried: 1, cdnFailed: 1 });
    assert.equal(failures[0]!.attempts, 2);
    assert.equal(failures[0]!.error.status, undefined);
    assert.ok(!failures[0]!.error.message.includes(TOKEN), failures[0]!.error.message);
  });

  it('gathers one tick’s purges into one request and splits past 100 tags', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    const { cache } = cacheWith([cloudflare(server)]);
    await Promise.all([cache.invalidateTags(['a', 'b']), cache.invalidateTags(['b', 'c'])]);
    await cache.idle();
    assert.equal(server.received.length, 1);
    assert.deepEqual(JSON.parse(server.received[0]!.body).tags.sort(), ['a', 'b', 'c']);
    // 64 tags at most per call: five calls of one tick gather 250.
    await Promise.all(Array.from({ length: 5 }, (_, call) => cache.invalidateTags(Array.from({ length: 50 }, (_, i) => `t${call}-${i}`))));
    await cache.idle();
    const sizes = server.received.slice(1).map((request) => JSON.parse(request.body).tags.length);
    assert.deepEqual(sizes, [100, 100, 50]);
    assert.equal(cache.stats().cdnFailed, 0);
  });

  it('close() aborts a purge still retrying, reported as failed', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    // A Retry-After far beyond close's timeout.
    for (let i = 0; i < 3; i++) server.faults.push({ status: 503, headers: { 'retry-after': '20' }, body: { success: false, errors: [] } });
    const cache = createCache({ store: memoryStore(), logger: false, cdn: [cloudflare(server)], cdnRetry: { maxElapsed: '60s' } });
    const failures: Array<CacheEventMap['cdnFailed']> = [];
    cache.events.addEventListener('cdnFailed', (event) => failures.push(event.detail));
    await cache.invalidateTags(['products']);
    while (server.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await cache.close({ timeout: 50 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.received.length, 1);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.error.message, /the cache closed before the purge was sent/);
  });
});

describe('fastlyPurge', () => {
  it('sends the keys space-separated in Surrogate-Key with Fastly-Key, soft when asked, after one 5xx', async () => {
    const server = await api(fastlyApi('svc1', TOKEN));
    server.faults.push({ status: 503, body: { msg: 'Service unavailable' } });
    const { cache } = cacheWith([fastlyPurge({ serviceId: 'svc1', token: TOKEN, apiBase: server.base, soft: true })]);
    await cache.invalidateTags(['products', 'product:1']);
    await cache.idle();
    assert.equal(server.received.length, 2);
    const request = server.received[1]!;
    assert.equal(request.headers['surrogate-key'], 'products product:1');
    assert.equal(request.headers['fastly-key'], TOKEN);
    assert.equal(request.headers['fastly-soft-purge'], '1');
    assert.deepEqual(pick(cache), { cdnSent: 1, cdnRetried: 1, cdnFailed: 0 });
  });

  it('reports a 401 with Fastly’s msg, without the key', async () => {
    const server = await api(fastlyApi('svc1', 'other'));
    const { cache, failures } = cacheWith([fastlyPurge({ serviceId: 'svc1', token: TOKEN, apiBase: server.base })]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.equal(server.received.length, 1);
    assert.equal(server.received[0]!.headers['fastly-soft-purge'], undefined);
    assert.match(failures[0]!.error.message, /HTTP 401: Provided credentials are missing or invalid/);
    assert.ok(!failures[0]!.error.message.includes(TOKEN));
  });
});

describe('vercelPurge', () => {
  it('invalidates by tag on the project (and team) with the bearer token; a 400 is not retried', async () => {
    const server = await api(vercelApi('prj_1', TOKEN));
    const { cache, failures } = cacheWith([vercelPurge({ token: TOKEN, projectId: 'prj_1', teamId: 'team_1', apiBase: server.base })]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    const url = new URL(server.received[0]!.url, 'http://api');
    assert.equal(url.searchParams.get('teamId'), 'team_1');
    assert.deepEqual(JSON.parse(server.received[0]!.body), { tags: ['products'] });
    assert.equal(server.received[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(pick(cache), { cdnSent: 1, cdnRetried: 0, cdnFailed: 0 });
    const wrong = cacheWith([vercelPurge({ token: TOKEN, projectId: 'prj_other', apiBase: server.base })]);
    await wrong.cache.invalidateTags(['products']);
    await wrong.cache.idle();
    assert.equal(server.received.length, 2);
    assert.match(wrong.failures[0]!.error.message, /HTTP 400: bad_request Invalid request/);
    assert.equal(failures.length, 0);
  });
});

describe('webhookPurge', () => {
  it('POSTs { tags, urls } signed with HMAC-SHA-256 over the body it sent', async () => {
    const server = await api(fakeApi(() => ({ status: 204 })));
    const { cache } = cacheWith([webhookPurge({ url: `${server.base}/purge`, headers: { authorization: `Bearer ${TOKEN}` }, sign: { secret: 'hook-secret' } })]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    const [request] = server.received;
    assert.deepEqual(JSON.parse(request!.body), { tags: ['products'], urls: [] });
    assert.equal(request!.headers['x-cachette-signature'], `sha256=${createHmac('sha256', 'hook-secret').update(request!.body).digest('hex')}`);
    assert.equal(request!.headers.authorization, `Bearer ${TOKEN}`);
  });

  it('never quotes its headers’ values in a failure', async () => {
    const server = await api(fakeApi((request) => ({ status: 401, body: { message: `refused ${String(request.headers.authorization)}` } })));
    const { cache, failures } = cacheWith([webhookPurge({ url: server.base, headers: { authorization: `Bearer ${TOKEN}` } })]);
    await cache.invalidateTags(['products']);
    await cache.idle();
    assert.match(failures[0]!.error.message, /HTTP 401: refused \*\*\*/);
    assert.ok(!failures[0]!.error.message.includes(TOKEN));
  });
});

describe('createCache({ cdn }) options', () => {
  it('refuses what is not a forwarder, and bad settings, with the setting named and no secret', () => {
    assert.throws(() => createCache({ store: memoryStore(), cdn: [{} as CdnPurger] }), /every "cdn" entry must be a purge forwarder/);
    assert.throws(() => createCache({ store: memoryStore(), cdn: [], cdnWait: Infinity }), /cdnWait must be finite/);
    assert.throws(() => createCache({ store: memoryStore(), cdn: [], cdnRetry: { attempts: 0 } }), /cdnRetry.attempts/);
    assert.throws(() => cloudflarePurge({ zoneId: 'z', token: '' }), /"token" must be a non-empty string/);
    assert.throws(() => fastlyPurge({ serviceId: 's', token: TOKEN, apiBase: 'ftp://x' }), /"apiBase" must be an http\(s\) URL/);
    assert.throws(() => webhookPurge({ url: 'not a url' }), /"url" must be an http\(s\) URL/);
  });

  it('with cdnWait, the invalidating call waits for the purge (bounded)', async () => {
    const server = await api(cloudflareApi('zone1', TOKEN));
    const cache = createCache({ store: memoryStore(), logger: false, cdn: [cloudflare(server)], cdnWait: '10s' });
    open.push(cache);
    await cache.invalidateTags(['products']);
    assert.equal(server.received.length, 1, 'sent before invalidateTags resolved');
    assert.equal(cache.stats().cdnSent, 1);
  });
});

function pick(cache: Cache): { cdnSent: number; cdnRetried: number; cdnFailed: number } {
  const { cdnSent, cdnRetried, cdnFailed } = cache.stats();
  return { cdnSent, cdnRetried, cdnFailed };
}
