/**
 * Stored bytes are untrusted (issue 10, item 9): an entry of the right shape that could not be
 * served as it is (a bad header name, CR/LF in a value, status 101 or 999) is a corrupt miss,
 * never a 500 and never served.
 */
import assert from 'node:assert/strict';
import { numbered, type ScenarioFn } from './harness.ts';

export function storedEntryScenarios(scenario: ScenarioFn): void {
  scenario("a stored response that cannot be served is a miss, replaced by the origin's answer, never a 500", {}, async ({ origin, cache, get, engine }) => {
    origin.on('/c', numbered({ 'cache-control': 'max-age=60', 'x-kept': 'yes' }));
    const first = await cache.fetch('/c');
    await first.text();
    await cache.idle();
    const key = `u:${first.url}`;
    const good = await engine.get<Record<string, unknown>>(key);
    assert.ok(good && Array.isArray(good.headers), 'the entry the cache stored is readable through the same store');
    const planted: Array<[string, Record<string, unknown>]> = [
      ['a header name with a space', { ...good, headers: [['bad name', 'x']] }],
      ['CR LF in a header value', { ...good, headers: [['x-injected', 'a\r\nset-cookie: evil=1']] }],
      ['status 101', { ...good, status: 101 }],
      ['status 999', { ...good, status: 999 }],
      ['a 206 without its spans', { ...good, status: 206 }],
      ['a content-length that disagrees with the body', { ...good, headers: [...(good.headers as unknown[]), ['content-length', '1']] }],
      ['a transfer-encoding', { ...good, headers: [...(good.headers as unknown[]), ['transfer-encoding', 'chunked']] }],
      ['a connection field', { ...good, headers: [...(good.headers as unknown[]), ['connection', 'close']] }],
      ['an upper-case header name', { ...good, headers: [...(good.headers as unknown[]), ['Content-Length', '1']] }],
    ];
    let k = 1;
    for (const [what, entry] of planted) {
      await engine.set(key, entry, { ttl: 60_000 });
      const r = await get('/c');
      k++;
      assert.equal(r.status, 200, what);
      assert.equal(r.body, `v${k}`, `${what}: answered by the origin`);
      assert.match(r.cs, /fwd=uri-miss/, what);
      assert.equal(r.headers.get('set-cookie'), null, what);
      const hit = await get('/c');
      assert.equal(hit.body, `v${k}`, `${what}: the origin's answer replaced it`);
      assert.match(hit.cs, /^cachette; hit/, what);
    }
    assert.equal(origin.count('/c'), planted.length + 1);
  });

  scenario('an entry stored with its Content-Length (as earlier versions wrote them) is served with one length, from its body', {}, async ({ origin, cache, get, engine }) => {
    origin.on('/legacy', numbered({ 'cache-control': 'max-age=60' }));
    const first = await cache.fetch('/legacy');
    await first.text();
    await cache.idle();
    const key = `u:${first.url}`;
    const stored = await engine.get<{ headers: Array<[string, string]>; body: Uint8Array }>(key);
    assert.ok(stored);
    assert.equal(
      stored.headers.find(([name]) => name === 'content-length'),
      undefined,
      'no framing field is stored',
    );
    await engine.set(key, { ...stored, headers: [...stored.headers, ['content-length', String(stored.body.byteLength)]] }, { ttl: 60_000 });
    const hit = await get('/legacy');
    assert.equal(hit.body, 'v1');
    assert.match(hit.cs, /^cachette; hit/);
    assert.equal(hit.headers.get('content-length'), '2');
    assert.equal(origin.count('/legacy'), 1);
  });
}
