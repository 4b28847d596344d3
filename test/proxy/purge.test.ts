/**
 * Issue 10, item 6: purge over HTTP — off unless a token is set; with it, by URL and by tag,
 * only for the token's holder.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { MAX_PURGE_BODY_BYTES, MAX_PURGE_TARGETS } from '../../products/proxy/purge-endpoint.ts';
import { cacheable, closesAfterEach, proxyFor, rawExchange, recordingOrigin, statusOf, type RecordingOrigin } from './support.ts';

const closing = closesAfterEach();
const TOKEN = 'purge-token-0123456789';

/** Each path answers with its name and how often it was asked, tagged by its first segment. */
function countingOrigin(): Promise<RecordingOrigin> {
  const asked = new Map<string, number>();
  return recordingOrigin((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(204).end();
    const n = (asked.get(req.url!) ?? 0) + 1;
    asked.set(req.url!, n);
    cacheable(res, `${req.url} #${n}`, { 'cache-tag': req.url!.split('/')[1]!, vary: 'accept-language' });
  });
}

async function body(url: string, init?: RequestInit): Promise<string> {
  return (await fetch(url, init)).text();
}

function purgeRequest(url: string, payload: unknown, token: string | null = TOKEN): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

describe('proxy: purge endpoint', () => {
  it('is off by default: the path and the PURGE method go to the origin like any request', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'origin')));
    const proxy = closing(await proxyFor(origin.url));
    assert.equal(await body(`${proxy.url}/.cachette/purge`, { method: 'POST', body: '{"tags":["x"]}' }), 'origin');
    await fetch(`${proxy.url}/x`, { method: 'PURGE' });
    assert.deepEqual(
      origin.received.map((r) => r.method),
      ['POST', 'PURGE'],
    );
  });

  it('purges every variant of a URL, by path or absolute URL, and by tag, for the token holder only', async () => {
    const origin = closing(await countingOrigin());
    const proxy = closing(await proxyFor(origin.url, { purge: { token: TOKEN } }));
    const get = (path: string, lang = 'en') => body(`${proxy.url}${path}`, { headers: { 'accept-language': lang } });
    for (const path of ['/news/a', '/news/b', '/shop/c']) {
      await get(path, 'en');
      await get(path, 'de');
    }
    await proxy.idle();
    assert.equal(await get('/news/a', 'de'), '/news/a #2', 'stored');

    for (const token of [null, 'wrong-token-0123456789']) {
      const refused = await purgeRequest(`${proxy.url}/.cachette/purge`, { tags: ['news'] }, token);
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="cachette purge"');
    }
    assert.equal(await get('/news/a', 'de'), '/news/a #2', 'nothing was purged without the token');

    const byUrl = await purgeRequest(`${proxy.url}/.cachette/purge`, { urls: ['/news/a', `${proxy.url}/shop/c`] });
    assert.equal(byUrl.status, 200);
    assert.ok(((await byUrl.json()) as { purged: number }).purged >= 2);
    assert.equal(await get('/news/a', 'en'), '/news/a #3', 'both variants of /news/a are gone');
    assert.equal(await get('/news/a', 'de'), '/news/a #4');
    assert.equal(await get('/shop/c'), '/shop/c #3');
    assert.equal(await get('/news/b'), '/news/b #1', 'untouched');

    const byTag = await purgeRequest(`${proxy.url}/.cachette/purge`, { tags: ['news'] });
    assert.equal(byTag.status, 200);
    assert.equal(await get('/news/b'), '/news/b #3');

    const purge = await fetch(`${proxy.url}/shop/c`, { method: 'PURGE', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(purge.status, 200);
    assert.equal(await get('/shop/c'), '/shop/c #4');
    assert.ok(!origin.received.some((r) => r.method !== 'GET'), 'purge requests never reach the origin');
  });

  it('soft: what the URLs name turns stale and is revalidated; the stored copies are not removed', async () => {
    const origin = closing(
      await recordingOrigin((req, res) => {
        if (req.headers['if-none-match'] === '"e1"') return void res.writeHead(304, { etag: '"e1"', 'cache-control': 'max-age=60' }).end();
        res.writeHead(200, { etag: '"e1"', 'cache-control': 'max-age=60', 'content-type': 'text/plain' }).end(`body for ${req.url}`);
      }),
    );
    const proxy = closing(await proxyFor(origin.url, { purge: { token: TOKEN } }));
    assert.equal(await body(`${proxy.url}/soft`), 'body for /soft');
    await proxy.idle();
    const soft = await purgeRequest(`${proxy.url}/.cachette/purge`, { urls: ['/soft'], soft: true });
    assert.deepEqual(await soft.json(), { purged: 1 });
    const revalidated = await fetch(`${proxy.url}/soft`);
    assert.equal(await revalidated.text(), 'body for /soft', 'the stored body, confirmed by a 304');
    assert.match(revalidated.headers.get('cache-status') ?? '', /fwd=stale; fwd-status=304/);
    assert.equal(origin.received.at(-1)!.headers['if-none-match'], '"e1"');
  });

  it('refuses what it cannot act on, with the reason', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'origin')));
    const proxy = closing(await proxyFor(origin.url, { purge: { token: TOKEN, path: '/_purge' } }));
    const url = `${proxy.url}/_purge`;
    const cases: Array<[unknown, number, RegExp]> = [
      ['not json', 400, /must be JSON/],
      [[1, 2], 400, /JSON object/],
      [{ urls: 'x' }, 400, /arrays of non-empty strings/],
      [{ tags: [''] }, 400, /arrays of non-empty strings/],
      [{}, 400, /at least one URL or tag/],
      [{ urls: ['ftp://x/y'] }, 400, /not a path or an http\(s\) URL/],
      [{ urls: ['/a'], soft: 'yes' }, 400, /"soft" must be true or false/],
      [{ tags: Array.from({ length: MAX_PURGE_TARGETS + 1 }, (_, i) => `t${i}`) }, 400, /at most 1000/],
      ['x'.repeat(MAX_PURGE_BODY_BYTES + 1), 413, /exceeds 65536 bytes/],
    ];
    for (const [payload, status, message] of cases) {
      const res = await purgeRequest(url, payload);
      assert.equal(res.status, status, JSON.stringify(payload).slice(0, 40));
      assert.match(((await res.json()) as { error: string }).error, message);
    }
    const get = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const declaredTooLarge = await rawExchange(proxy.port, `POST /_purge HTTP/1.1\r\nHost: site.test\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 999999\r\n\r\n{`);
    assert.equal(statusOf(declaredTooLarge), 413);
    assert.equal(origin.received.length, 0);
  });

  it('refuses a short token or a bad path when it starts', async () => {
    const origin = closing(await recordingOrigin((_req, res) => cacheable(res, 'origin')));
    await assert.rejects(proxyFor(origin.url, { purge: { token: 'short' } }), /purge.token must be at least 16 characters of visible ASCII/);
    await assert.rejects(proxyFor(origin.url, { purge: { token: TOKEN, path: 'no-slash' } }), /purge.path must be a path/);
  });
});
