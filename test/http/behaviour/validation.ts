/** Validation (RFC 9111 §4.3): conditional requests to the origin, 304 handling, client validators. */
import assert from 'node:assert/strict';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { reply } from '../scripted-origin.ts';
import { DAY, numbered, SECOND, type ScenarioFn } from './harness.ts';

export function validationScenarios(scenario: ScenarioFn): void {
  scenario('revalidates a stale response with its ETag; a 304 refreshes headers and freshness', {}, async ({ origin, clock, get }) => {
    origin.on('/etag', (req, k) =>
      req.headers.get('if-none-match') === '"v1"'
        ? reply(null, { etag: '"v1"', 'cache-control': 'max-age=100', 'x-version': `${k}` }, 304)
        : reply(`body${k}`, { etag: '"v1"', 'cache-control': 'max-age=10', 'x-version': `${k}` }),
    );
    await get('/etag');
    clock.advance(20 * SECOND);
    const revalidated = await get('/etag');
    assert.equal(revalidated.status, 200);
    assert.equal(revalidated.body, 'body1');
    assert.equal(revalidated.cs, 'cachette; fwd=stale; fwd-status=304; ttl=100');
    assert.equal(revalidated.headers.get('x-version'), '2');
    assert.equal(origin.seen[1]!.headers.get('if-none-match'), '"v1"');
    clock.advance(50 * SECOND);
    const hit = await get('/etag');
    assert.equal(hit.cs, 'cachette; hit; ttl=50');
    assert.equal(hit.age, 50);
    assert.equal(origin.count('/etag'), 2);
  });

  scenario('revalidates with If-Modified-Since from Last-Modified', {}, async ({ origin, clock, get }) => {
    const lm = formatHttpDate(clock.now() - DAY);
    origin.on('/lmv', (req, k) => (req.headers.get('if-modified-since') === lm ? reply(null, {}, 304) : reply(`v${k}`, { 'last-modified': lm, 'cache-control': 'max-age=1' })));
    await get('/lmv');
    clock.advance(5 * SECOND);
    const r = await get('/lmv');
    assert.equal(r.body, 'v1');
    assert.match(r.cs, /fwd=stale; fwd-status=304/);
    assert.equal(origin.count('/lmv'), 2);
  });

  scenario('answers a matching client If-None-Match (weak comparison) or If-Modified-Since with 304', {}, async ({ origin, clock, get }) => {
    const lm = formatHttpDate(clock.now() - DAY);
    // A fetch() client adds Cache-Control: no-cache to conditional requests unless the
    // request already has a Cache-Control (Fetch standard, HTTP-network-or-cache fetch).
    const conditional = (h: Record<string, string>) => ({ headers: { 'cache-control': 'no-transform', ...h } });
    origin.on('/cv', numbered({ 'cache-control': 'max-age=60', etag: 'W/"abc"', 'last-modified': lm }));
    const first = await get('/cv', conditional({ 'if-none-match': '"abc"' }));
    assert.equal(first.status, 304, 'the stored 200 answers the conditional request of the client that caused it');
    assert.equal(origin.seen[0]!.headers.get('if-none-match'), null, 'the client validator is not sent on');
    const weak = await get('/cv', conditional({ 'if-none-match': '"zzz", "abc"' }));
    assert.equal(weak.status, 304);
    assert.equal(weak.body, '');
    assert.equal(weak.headers.get('etag'), 'W/"abc"');
    assert.match(weak.cs, /hit/);
    assert.equal((await get('/cv', conditional({ 'if-modified-since': formatHttpDate(clock.now()) }))).status, 304);
    assert.equal((await get('/cv', conditional({ 'if-none-match': '"other"' }))).status, 200);
    assert.equal((await get('/cv', conditional({ 'if-modified-since': 'garbage' }))).status, 200);
    assert.equal(origin.count('/cv'), 1);
  });

  scenario('a 304 whose validator matches no stored response updates nothing: the full response is fetched unconditionally', {}, async ({ origin, clock, get }) => {
    // An origin that answers every conditional request with a 304 for its current validator,
    // whatever the cache asked about (as one judging If-Modified-Since alone would).
    const oldLm = formatHttpDate(clock.now() - 2 * DAY);
    const newLm = formatHttpDate(clock.now() - DAY);
    origin.on('/mm-etag', (req, k) => {
      if (k === 1) return reply('old', { etag: '"a"', 'cache-control': 'max-age=10' });
      if (req.headers.has('if-none-match')) return reply(null, { etag: '"b"', 'cache-control': 'max-age=100' }, 304);
      return reply(`new${k}`, { etag: '"b"', 'cache-control': 'max-age=100' });
    });
    origin.on('/mm-lm', (req, k) => {
      if (k === 1) return reply('old', { 'last-modified': oldLm, 'cache-control': 'max-age=10' });
      if (req.headers.has('if-modified-since')) return reply(null, { 'last-modified': newLm, 'cache-control': 'max-age=100' }, 304);
      return reply(`new${k}`, { 'last-modified': newLm, 'cache-control': 'max-age=100' });
    });
    origin.on('/mm-weak', (req, k) => {
      if (k === 1) return reply('old', { etag: 'W/"a"', 'cache-control': 'max-age=10' });
      if (req.headers.has('if-none-match')) return reply(null, { etag: '"a"', 'cache-control': 'max-age=100' }, 304);
      return reply(`new${k}`, { etag: '"a"', 'cache-control': 'max-age=100' });
    });
    for (const p of ['/mm-etag', '/mm-lm', '/mm-weak']) await get(p);
    clock.advance(20 * SECOND);
    for (const p of ['/mm-etag', '/mm-lm', '/mm-weak']) {
      const r = await get(p);
      assert.equal(r.status, 200, p);
      assert.equal(r.body, 'new3', `${p}: never the old body as if revalidated`);
      assert.equal(r.cs, 'cachette; fwd=stale; fwd-status=200; ttl=100; stored', p);
      assert.equal(origin.count(p), 3, p);
      const [conditional, unconditional] = origin.seen.filter((seen) => seen.path === p).slice(1);
      assert.ok(conditional!.headers.has('if-none-match') || conditional!.headers.has('if-modified-since'), p);
      assert.equal(unconditional!.headers.get('if-none-match'), null, p);
      assert.equal(unconditional!.headers.get('if-modified-since'), null, p);
    }
    clock.advance(50 * SECOND);
    for (const p of ['/mm-etag', '/mm-lm', '/mm-weak']) {
      const hit = await get(p);
      assert.equal(hit.body, 'new3', p);
      assert.equal(hit.cs, 'cachette; hit; ttl=50', p);
      assert.equal(origin.count(p), 3, p);
    }
  });

  scenario('a 304 that matches no stored response goes to a client whose own validator it satisfies, and the outdated copy is dropped', {}, async ({ origin, clock, get }) => {
    origin.on('/mmc', (req, k) => {
      if (k === 1) return reply('old', { etag: '"a"', 'cache-control': 'max-age=10' });
      if (req.headers.has('if-none-match')) return reply(null, { etag: '"b"', 'cache-control': 'max-age=100' }, 304);
      return reply(`new${k}`, { etag: '"b"', 'cache-control': 'max-age=100' });
    });
    await get('/mmc');
    clock.advance(20 * SECOND);
    const passed = await get('/mmc', { headers: { 'cache-control': 'no-transform', 'if-none-match': '"b"' } });
    assert.equal(passed.status, 304);
    assert.equal(passed.body, '');
    assert.equal(passed.headers.get('etag'), '"b"');
    assert.equal(passed.cs, 'cachette; fwd=stale; fwd-status=304; detail="validator-mismatch"');
    assert.equal(origin.seen[1]!.headers.get('if-none-match'), '"a"', 'the cache asked about its own copy');
    assert.equal(origin.count('/mmc'), 2);
    const next = await get('/mmc');
    assert.equal(next.body, 'new3', 'the copy the 304 did not match is not served again');
    assert.match(next.cs, /fwd=uri-miss; fwd-status=200; ttl=100; stored/);
    assert.equal(origin.count('/mmc'), 3);
  });
}
