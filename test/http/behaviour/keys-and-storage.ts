/** Keys, methods, variants, and what is stored (RFC 9111 §3, §4.1). */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { numbered, SECOND, type ScenarioFn } from './harness.ts';

export function keyAndStorageScenarios(scenario: ScenarioFn): void {
  scenario('stores a fresh response and serves it with Age and Cache-Status', {}, async ({ origin, clock, get }) => {
    origin.on('/a', numbered({ 'cache-control': 'max-age=60' }));
    const first = await get('/a');
    assert.equal(first.body, 'v1');
    assert.equal(first.cs, 'cachette; fwd=uri-miss; fwd-status=200; ttl=60; stored');
    assert.equal(first.age, 0);
    clock.advance(10 * SECOND);
    const second = await get('/a');
    assert.equal(second.status, 200);
    assert.equal(second.body, 'v1');
    assert.equal(second.age, 10);
    assert.equal(second.cs, 'cachette; hit; ttl=50');
    assert.equal(origin.count('/a'), 1);
  });

  scenario('answers HEAD from a stored GET, and forwards an uncached HEAD without storing it', {}, async ({ origin, get }) => {
    origin.on('/h', numbered({ 'cache-control': 'max-age=60', 'content-type': 'text/plain' }));
    await get('/h');
    const head = await get('/h', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.cs, 'cachette; hit; ttl=60');
    assert.equal(origin.count('/h'), 1);
    origin.on('/h2', numbered({ 'cache-control': 'max-age=60' }));
    const miss = await get('/h2', { method: 'HEAD' });
    assert.match(miss.cs, /fwd=uri-miss/);
    assert.doesNotMatch(miss.cs, /stored/);
    assert.equal((await get('/h2')).body, 'v2');
    assert.equal(origin.count('/h2'), 2);
  });

  scenario('keeps one variant per value of the fields Vary names', {}, async ({ origin, get }) => {
    origin.on('/v', (req, k) => reply(`${req.headers.get('accept-language')}${k}`, { 'cache-control': 'max-age=60', vary: 'Accept-Language' }));
    assert.equal((await get('/v', { headers: { 'accept-language': 'en' } })).body, 'en1');
    const fr = await get('/v', { headers: { 'accept-language': 'fr' } });
    assert.equal(fr.body, 'fr2');
    assert.match(fr.cs, /fwd=vary-miss/);
    const en = await get('/v', { headers: { 'accept-language': 'en' } });
    assert.equal(en.body, 'en1');
    assert.equal(en.cs, 'cachette; hit; ttl=60');
    assert.equal((await get('/v', { headers: { 'accept-language': 'fr' } })).body, 'fr2');
    assert.equal(origin.count('/v'), 2);
  });

  scenario('never serves a Vary: * response from the cache', {}, async ({ origin, get }) => {
    origin.on('/star', numbered({ 'cache-control': 'max-age=60', vary: '*' }));
    await get('/star');
    const second = await get('/star');
    assert.equal(second.body, 'v2');
    assert.match(second.cs, /detail="vary-star"/);
    assert.equal(origin.count('/star'), 2);
  });

  scenario('sorts the query and ignores the listed parameters when asked', { sortQuery: true, ignoreQuery: ['utm_source'] }, async ({ origin, get }) => {
    origin.on('/q', numbered({ 'cache-control': 'max-age=60' }));
    await get('/q?a=1&b=2');
    const hit = await get('/q?b=2&utm_source=mail&a=1');
    assert.equal(hit.body, 'v1');
    assert.match(hit.cs, /hit/);
    assert.equal((await get('/q?a=1&b=3')).body, 'v2');
    assert.equal(origin.count('/q'), 2);
  });

  scenario('ignoreQuery drops only whole &-separated pairs without `;`, and keeps the rest as sent (issue 23, item 19)', { ignoreQuery: ['utm_source'], sortQuery: true }, async ({ origin, get }) => {
    // An origin that splits the query on `;` as well as `&`, and reflects the last callback.
    origin.on('/jsonp', (req, k) => {
      const query = new URL(req.url).search.slice(1);
      const callback = query
        .split(/[&;]/)
        .filter((p) => p.startsWith('callback='))
        .pop()
        ?.slice('callback='.length);
      return reply(`${callback}(${k})`, { 'cache-control': 'max-age=60' });
    });
    assert.equal((await get('/jsonp?callback=ok&utm_source=x;callback=evil')).body, 'evil(1)');
    assert.equal((await get('/jsonp?callback=ok')).body, 'ok(2)', 'the cloaked callback did not reach the plain URL');
    assert.equal((await get('/jsonp?utm_source=mail&callback=ok')).body, 'ok(2)', 'a whole utm_source pair is still ignored');
    // Spellings an origin may tell apart stay apart: the query is not re-encoded.
    assert.equal((await get('/jsonp?callback=a+b')).body, 'a+b(3)');
    assert.equal((await get('/jsonp?callback=a%20b')).body, 'a%20b(4)');
    assert.equal(origin.count('/jsonp'), 4);
  });

  scenario('keys on the whole query by default', {}, async ({ origin, get }) => {
    origin.on('/q', numbered({ 'cache-control': 'max-age=60' }));
    await get('/q?a=1&b=2');
    assert.equal((await get('/q?b=2&a=1')).body, 'v2');
    assert.equal(origin.count('/q'), 2);
  });

  scenario('uses a custom key function', { key: (req) => new URL(req.url).pathname }, async ({ origin, get }) => {
    origin.on('/k', numbered({ 'cache-control': 'max-age=60' }));
    await get('/k?x=1');
    assert.equal((await get('/k?x=2')).body, 'v1');
    assert.equal(origin.count('/k'), 1);
  });

  scenario('stores heuristically cacheable statuses and others only with explicit freshness', {}, async ({ origin, get }) => {
    origin.on('/404', numbered({ 'cache-control': 'max-age=60' }, 404));
    origin.on('/500', numbered({}, 500));
    origin.on('/503', numbered({ 'cache-control': 'max-age=60' }, 503));
    origin.on('/302', numbered({ location: '/elsewhere' }, 302));
    for (const path of ['/404', '/500', '/503', '/302']) {
      await get(path);
      await get(path);
    }
    assert.equal(origin.count('/404'), 1);
    assert.equal(origin.count('/500'), 2);
    assert.equal(origin.count('/503'), 1);
    assert.equal(origin.count('/302'), 2);
    const r = await get('/404');
    assert.equal(r.status, 404);
    assert.equal(r.body, 'v1');
  });

  scenario('applies the default ttl only to cacheable responses without freshness information', { ttl: 30 * SECOND }, async ({ origin, clock, get }) => {
    origin.on('/d', numbered({}));
    origin.on('/e', numbered({ 'cache-control': 'max-age=5' }));
    await get('/d');
    await get('/e');
    clock.advance(20 * SECOND);
    assert.equal((await get('/d')).cs, 'cachette; hit; ttl=10');
    assert.match((await get('/e')).cs, /fwd=stale/);
    assert.deepEqual([origin.count('/d'), origin.count('/e')], [1, 2]);
  });

  scenario('does not store a response without freshness information when no ttl is configured', {}, async ({ origin, get }) => {
    origin.on('/none', numbered({}));
    await get('/none');
    const second = await get('/none');
    assert.equal(second.body, 'v2');
    assert.match(second.cs, /detail="stale-on-arrival"/);
    assert.equal(origin.count('/none'), 2);
  });

  scenario('never stores no-store or private responses', {}, async ({ origin, get }) => {
    origin.on('/ns', numbered({ 'cache-control': 'no-store, max-age=60' }));
    origin.on('/pv', numbered({ 'cache-control': 'private, max-age=60' }));
    for (const p of ['/ns', '/pv']) {
      await get(p);
      assert.equal((await get(p)).body, 'v2');
    }
    assert.match((await get('/pv')).cs, /detail="private"/);
  });

  scenario('stores a response to an Authorization request only when public, s-maxage or must-revalidate allows it', {}, async ({ origin, get }) => {
    const auth = { headers: { authorization: 'Bearer x' } };
    origin.on('/auth', numbered({ 'cache-control': 'max-age=60' }));
    origin.on('/auth-public', numbered({ 'cache-control': 'public, max-age=60' }));
    origin.on('/auth-smax', numbered({ 'cache-control': 's-maxage=60' }));
    origin.on('/auth-mr', numbered({ 'cache-control': 'max-age=60, must-revalidate' }));
    for (const p of ['/auth', '/auth-public', '/auth-smax', '/auth-mr']) {
      await get(p, auth);
      await get(p, auth);
    }
    assert.deepEqual(
      ['/auth', '/auth-public', '/auth-smax', '/auth-mr'].map((p) => origin.count(p)),
      [2, 1, 1, 1],
    );
  });

  scenario('does not store Set-Cookie responses by default', {}, async ({ origin, get }) => {
    origin.on('/c', numbered({ 'cache-control': 'max-age=60', 'set-cookie': 'sid=1' }));
    await get('/c');
    const second = await get('/c');
    assert.match(second.cs, /detail="set-cookie"/);
    assert.equal(origin.count('/c'), 2);
  });

  scenario('stores Set-Cookie responses without the cookie under setCookie: strip', { setCookie: 'strip' }, async ({ origin, get }) => {
    origin.on('/c', numbered({ 'cache-control': 'max-age=60', 'set-cookie': 'sid=1' }));
    const first = await get('/c');
    assert.equal(first.headers.get('set-cookie'), 'sid=1');
    const hit = await get('/c');
    assert.equal(hit.body, 'v1');
    assert.equal(hit.headers.get('set-cookie'), null);
    assert.equal(origin.count('/c'), 1);
  });

  scenario('does not store hop-by-hop fields', {}, async ({ origin, get }) => {
    origin.on('/hop', numbered({ 'cache-control': 'max-age=60', connection: 'x-private-hop', 'x-private-hop': '1', 'proxy-authenticate': 'Basic', 'x-kept': 'yes' }));
    await get('/hop');
    const hit = await get('/hop');
    assert.match(hit.cs, /hit/);
    assert.equal(hit.headers.get('x-kept'), 'yes');
    assert.equal(hit.headers.get('x-private-hop'), null);
    assert.equal(hit.headers.get('proxy-authenticate'), null);
  });
}
