/**
 * The byte-level answer (`handleBytes`): a stored response served whole comes as
 * `{ status, headers, body }` carrying exactly what `handle` would put in its Response; every
 * other answer is that Response.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createHttpCache, type BytesAnswer } from '../../src/http/index.ts';

const URL_ = 'http://site.test/doc';
const origin = async () => new Response('stored body', { headers: { 'cache-control': 'max-age=60', etag: '"v1"', vary: 'accept', 'set-cookie': 'a=1' } });

/** A Response's fields as sorted pairs, combined the way Headers combines them. */
function fieldsOf(headers: Headers): string[] {
  return [...headers].map(([name, value]) => `${name}: ${value}`).sort();
}

/** A byte answer's fields, combined the same way (Set-Cookie apart). */
function fieldsOfBytes(answer: BytesAnswer): string[] {
  return fieldsOf(new Headers(answer.headers));
}

async function primed() {
  let now = 1_700_000_000_000;
  const cache = createHttpCache({ store: memoryStore(), setCookie: 'store', xCache: true, now: () => now });
  await (await cache.handle(new Request(URL_), origin)).text();
  await cache.idle();
  now += 5000;
  return cache;
}

describe('handleBytes', () => {
  it('answers a hit as bytes with the fields, status and body handle gives', async () => {
    const cache = await primed();
    const bytes = await cache.handleBytes(new Request(URL_), origin);
    assert.ok(!(bytes instanceof Response), 'a hit comes as bytes');
    const response = await cache.handle(new Request(URL_), origin);
    assert.equal(bytes.status, response.status);
    assert.deepEqual(fieldsOfBytes(bytes), fieldsOf(response.headers));
    assert.equal(new TextDecoder().decode(bytes.body!), await response.text());
    assert.match(new Headers(bytes.headers).get('cache-status')!, /^cachette; hit; ttl=55/);
    assert.equal(new Headers(bytes.headers).get('age'), '5');
  });

  it('answers a 304 and a HEAD as bytes without a body', async () => {
    const cache = await primed();
    const conditional = await cache.handleBytes(new Request(URL_, { headers: { 'if-none-match': '"v1"' } }), origin);
    assert.ok(!(conditional instanceof Response));
    assert.equal(conditional.status, 304);
    assert.equal(conditional.body, null);
    const expected = await cache.handle(new Request(URL_, { headers: { 'if-none-match': '"v1"' } }), origin);
    assert.deepEqual(fieldsOfBytes(conditional), fieldsOf(expected.headers));
    assert.equal(new Headers(conditional.headers).has('content-length'), false);
    const head = await cache.handleBytes(new Request(URL_, { method: 'HEAD' }), origin);
    assert.ok(!(head instanceof Response));
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
  });

  it('gives a Response for a byte range, a miss and a forward', async () => {
    const cache = await primed();
    const range = await cache.handleBytes(new Request(URL_, { headers: { range: 'bytes=0-5' } }), origin);
    assert.ok(range instanceof Response);
    assert.equal(range.status, 206);
    assert.equal(await range.text(), 'stored');
    const miss = await cache.handleBytes(new Request('http://site.test/other'), origin);
    assert.ok(miss instanceof Response);
    await miss.text();
    const forwarded = await cache.handleBytes(new Request(URL_, { headers: { 'cache-control': 'no-cache' } }), origin);
    assert.ok(forwarded instanceof Response);
    await forwarded.text();
    await cache.close();
  });
});
