import assert from 'node:assert/strict';
import { formatHttpDate } from '../../src/http/http-date.ts';
import type { SuiteApi } from '../support/suite-api.ts';
import { DAY, HOUR, MINUTE, numbered, scenarioFor, SECOND, type HttpTarget } from './behaviour/harness.ts';
import { negotiationScenarios } from './behaviour/negotiation.ts';
import { originFailureScenarios } from './behaviour/origin-failures.ts';
import { purgeScenarios } from './behaviour/purge.ts';
import { rangeScenarios } from './behaviour/ranges.ts';
import { remainingRuleScenarios } from './behaviour/remaining-rules.ts';
import { storedEntryScenarios } from './behaviour/stored-entries.ts';
import { targetedFieldScenarios } from './behaviour/targeted-fields.ts';
import { reply } from './scripted-origin.ts';

export type { HttpTarget, RunningTarget, TestCacheOptions } from './behaviour/harness.ts';

/**
 * The HTTP cache's behaviour, black-box: each test scripts an origin, puts the target's cache
 * in front of it, and asserts what the client got (status, body, Age, Cache-Status) and how
 * many requests reached the origin. Time is a fake clock shared by cache and origin: no test
 * sleeps for staleness. The scenarios below are the core rules; the groups in behaviour/ add
 * targeted fields, byte ranges, content negotiation, the remaining RFC rules, origin
 * failures, purging and stored entries that cannot be trusted.
 */
export function httpBehaviourSuite(t: SuiteApi, target: HttpTarget): void {
  const scenario = scenarioFor(t, target);

  t.describe(`http cache behaviour: ${target.name}`, () => {
    // ── key, methods, variants ──────────────────────────────────────────────────────────
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

    // ── what is stored ──────────────────────────────────────────────────────────────────
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
      assert.deepEqual(['/auth', '/auth-public', '/auth-smax', '/auth-mr'].map((p) => origin.count(p)), [2, 1, 1, 1]);
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

    // ── freshness ───────────────────────────────────────────────────────────────────────
    scenario('prefers s-maxage to max-age, and max-age to Expires', {}, async ({ origin, clock, get }) => {
      origin.on('/s', numbered({ 'cache-control': 'max-age=1, s-maxage=100' }));
      origin.on('/m', numbered({ 'cache-control': 'max-age=100', expires: formatHttpDate(clock.now() - HOUR) }));
      await get('/s');
      await get('/m');
      clock.advance(50 * SECOND);
      assert.equal((await get('/s')).cs, 'cachette; hit; ttl=50');
      assert.equal((await get('/m')).cs, 'cachette; hit; ttl=50');
      assert.deepEqual([origin.count('/s'), origin.count('/m')], [1, 1]);
    });

    scenario('uses Expires minus Date, and treats an invalid Expires as already expired', {}, async ({ origin, clock, get }) => {
      origin.on('/x', numbered({ expires: formatHttpDate(clock.now() + MINUTE) }));
      origin.on('/bad', numbered({ expires: '0' }));
      await get('/x');
      clock.advance(30 * SECOND);
      assert.equal((await get('/x')).cs, 'cachette; hit; ttl=30');
      clock.advance(31 * SECOND);
      assert.equal((await get('/x')).body, 'v2');
      await get('/bad');
      assert.equal((await get('/bad')).body, 'v2');
      assert.equal(origin.count('/bad'), 2);
    });

    scenario('gives heuristic freshness of 10 % of the Last-Modified age, capped at one day', {}, async ({ origin, clock, get }) => {
      origin.on('/lm', numbered({ 'last-modified': formatHttpDate(clock.now() - 5 * DAY) }));
      origin.on('/old', numbered({ 'last-modified': formatHttpDate(clock.now() - 100 * DAY) }));
      origin.on('/lm500', numbered({ 'last-modified': formatHttpDate(clock.now() - 5 * DAY) }, 500));
      await get('/lm');
      await get('/old');
      await get('/lm500');
      clock.advance(11 * HOUR);
      assert.equal((await get('/lm')).cs, 'cachette; hit; ttl=3600');
      assert.equal((await get('/lm500')).body, 'v2', 'a 500 gets no heuristic freshness');
      clock.advance(2 * HOUR);
      assert.match((await get('/lm')).cs, /fwd=stale/);
      clock.advance(10 * HOUR);
      assert.equal((await get('/old')).cs, 'cachette; hit; ttl=3600', 'capped at one day');
      clock.advance(HOUR + SECOND);
      assert.match((await get('/old')).cs, /fwd=stale/);
    });

    scenario('counts the age a response already had when it arrived (corrected initial age)', {}, async ({ origin, clock, get }) => {
      origin.on('/aged', numbered({ 'cache-control': 'max-age=60', age: '30' }));
      origin.on('/dated', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60', date: formatHttpDate(clock.now() - 20 * SECOND) }));
      const first = await get('/aged');
      assert.equal(first.age, 30);
      assert.match(first.cs, /ttl=30/);
      clock.advance(5 * SECOND);
      const hit = await get('/aged');
      assert.equal(hit.age, 35);
      assert.equal(hit.cs, 'cachette; hit; ttl=25');
      assert.equal((await get('/dated')).age, 20);
      clock.advance(41 * SECOND);
      assert.match((await get('/dated')).cs, /fwd=stale/);
    });

    // ── request directives ──────────────────────────────────────────────────────────────
    scenario('request no-store forwards and stores nothing; request no-cache and Pragma revalidate', {}, async ({ origin, get }) => {
      origin.on('/r', (req, k) => (req.headers.get('if-none-match') === '"e"' ? reply(null, { etag: '"e"' }, 304) : reply(`v${k}`, { 'cache-control': 'max-age=60', etag: '"e"' })));
      const noStore = await get('/r', { headers: { 'cache-control': 'no-store' } });
      assert.match(noStore.cs, /fwd=uri-miss; fwd-status=200; detail="request-no-store"/);
      assert.match((await get('/r')).cs, /fwd=uri-miss.*stored/);
      const noCache = await get('/r', { headers: { 'cache-control': 'no-cache' } });
      assert.equal(noCache.body, 'v2');
      assert.match(noCache.cs, /fwd=request; fwd-status=304/);
      const pragma = await get('/r', { headers: { pragma: 'no-cache' } });
      assert.match(pragma.cs, /fwd=request; fwd-status=304/);
      const ccWins = await get('/r', { headers: { pragma: 'no-cache', 'cache-control': 'max-stale' } });
      assert.match(ccWins.cs, /hit/);
      assert.equal(origin.count('/r'), 4);
    });

    scenario('request max-age, min-fresh and max-stale select what may be reused', {}, async ({ origin, clock, get }) => {
      origin.on('/d', numbered({ 'cache-control': 'max-age=60' }));
      await get('/d');
      clock.advance(30 * SECOND);
      assert.match((await get('/d', { headers: { 'cache-control': 'max-age=10' } })).cs, /fwd=request/);
      clock.advance(30 * SECOND);
      assert.match((await get('/d', { headers: { 'cache-control': 'min-fresh=50' } })).cs, /fwd=request/);
      clock.advance(70 * SECOND);
      const stale = await get('/d', { headers: { 'cache-control': 'max-stale=100' } });
      assert.equal(stale.body, 'v3');
      assert.equal(stale.cs, 'cachette; hit; ttl=-10');
      assert.equal(stale.age, 70);
      assert.match((await get('/d', { headers: { 'cache-control': 'max-stale=5' } })).cs, /fwd=stale/);
      assert.equal(origin.count('/d'), 4);
    });

    scenario('request max-age still bounds the age of a stale response that max-stale accepts', {}, async ({ origin, clock, get }) => {
      origin.on('/ms', numbered({ 'cache-control': 'max-age=10' }));
      await get('/ms');
      clock.advance(30 * SECOND);
      const within = await get('/ms', { headers: { 'cache-control': 'max-age=40, max-stale=60' } });
      assert.equal(within.body, 'v1');
      assert.equal(within.cs, 'cachette; hit; ttl=-20');
      const older = await get('/ms', { headers: { 'cache-control': 'max-age=20, max-stale=60' } });
      assert.equal(older.body, 'v2');
      assert.match(older.cs, /fwd=stale; fwd-status=200/);
      assert.equal(origin.count('/ms'), 2);
    });

    scenario('only-if-cached answers 504 without contacting the origin when nothing is stored', {}, async ({ origin, get }) => {
      origin.on('/o', numbered({ 'cache-control': 'max-age=60' }));
      const none = await get('/o', { headers: { 'cache-control': 'only-if-cached' } });
      assert.equal(none.status, 504);
      assert.equal(origin.count('/o'), 0);
      await get('/o');
      const hit = await get('/o', { headers: { 'cache-control': 'only-if-cached' } });
      assert.equal(hit.status, 200);
      assert.equal(hit.body, 'v1');
      assert.equal(origin.count('/o'), 1);
    });

    // ── validation ──────────────────────────────────────────────────────────────────────
    scenario('revalidates a stale response with its ETag; a 304 refreshes headers and freshness', {}, async ({ origin, clock, get }) => {
      origin.on('/etag', (req, k) => (req.headers.get('if-none-match') === '"v1"'
        ? reply(null, { etag: '"v1"', 'cache-control': 'max-age=100', 'x-version': `${k}` }, 304)
        : reply(`body${k}`, { etag: '"v1"', 'cache-control': 'max-age=10', 'x-version': `${k}` })));
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

    // ── stale-while-revalidate, stale-if-error, must-revalidate ─────────────────────────
    scenario('stale-while-revalidate serves stale at once and refreshes once in the background', { xCache: true }, async ({ origin, clock, get, cache }) => {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      origin.on('/swr', async (_, k) => {
        if (k === 2) await gate; // the refresh waits until both clients were answered
        return reply(`v${k}`, { 'cache-control': 'max-age=1, stale-while-revalidate=60' });
      });
      await get('/swr');
      clock.advance(5 * SECOND);
      const [a, b] = await Promise.all([cache.fetch('/swr'), cache.fetch('/swr')]);
      assert.deepEqual([await a.text(), await b.text()], ['v1', 'v1']);
      open();
      assert.equal(a.headers.get('x-cache'), 'STALE');
      assert.match(a.headers.get('cache-status')!, /hit; ttl=-4/);
      await cache.idle();
      assert.equal(origin.count('/swr'), 2);
      const fresh = await get('/swr');
      assert.equal(fresh.body, 'v2');
      assert.equal(fresh.headers.get('x-cache'), 'HIT');
      clock.advance(100 * SECOND);
      assert.match((await get('/swr')).cs, /fwd=stale/, 'past the window the stale copy is not served');
    });

    scenario('stale-if-error serves the stale response on an origin 5xx or failure', { xCache: true }, async ({ origin, clock, get }) => {
      origin.on('/sie', (_, k) => {
        if (k === 1) return reply('good', { 'cache-control': 'max-age=1, stale-if-error=60' });
        if (k === 2) return reply('down', {}, 503);
        throw new Error('origin crashed');
      });
      await get('/sie');
      clock.advance(10 * SECOND);
      const on503 = await get('/sie');
      assert.equal(on503.status, 200);
      assert.equal(on503.body, 'good');
      assert.match(on503.cs, /fwd=stale; fwd-status=503; ttl=-9; detail="stale-if-error"/);
      assert.equal(on503.headers.get('x-cache'), 'STALE');
      const onThrow = await get('/sie');
      assert.equal(onThrow.body, 'good');
      clock.advance(100 * SECOND);
      assert.equal((await get('/sie')).status, 500, 'past the window the error goes through');
      assert.equal(origin.count('/sie'), 4);
    });

    scenario('a request stale-if-error accepts a stale response on an origin 5xx or failure, unless the response forbids stale', { xCache: true }, async ({ origin, clock, get }) => {
      origin.on('/rsie', (_, k) => {
        if (k === 1) return reply('good', { 'cache-control': 'max-age=1' });
        if (k === 4) throw new Error('origin crashed');
        return reply('down', {}, 503);
      });
      origin.on('/rsie-mr', (_, k) => (k === 1 ? reply('good', { 'cache-control': 'max-age=1, must-revalidate' }) : reply('down', {}, 503)));
      origin.on('/rsie-smax', (_, k) => (k === 1 ? reply('good', { 'cache-control': 's-maxage=1' }) : reply('down', {}, 503)));
      const sie = { headers: { 'cache-control': 'stale-if-error=60' } };
      for (const p of ['/rsie', '/rsie-mr', '/rsie-smax']) await get(p);
      clock.advance(10 * SECOND);
      const plain = await get('/rsie');
      assert.equal(plain.status, 503, 'without the directive the error goes through');
      assert.equal(plain.body, 'down');
      const on503 = await get('/rsie', sie);
      assert.equal(on503.status, 200);
      assert.equal(on503.body, 'good');
      assert.equal(on503.cs, 'cachette; fwd=stale; fwd-status=503; ttl=-9; detail="stale-if-error"');
      assert.equal(on503.headers.get('x-cache'), 'STALE');
      assert.equal(on503.age, 10);
      const onThrow = await get('/rsie', sie);
      assert.equal(onThrow.status, 200);
      assert.equal(onThrow.body, 'good');
      assert.equal((await get('/rsie', { headers: { 'cache-control': 'stale-if-error=5' } })).status, 503, 'past the request\'s own window');
      assert.equal((await get('/rsie-mr', sie)).status, 503, 'must-revalidate forbids it');
      assert.equal((await get('/rsie-smax', sie)).status, 503, 's-maxage forbids it');
      clock.advance(100 * SECOND);
      assert.equal((await get('/rsie', sie)).status, 503, 'past the window the error goes through');
      assert.deepEqual([origin.count('/rsie'), origin.count('/rsie-mr'), origin.count('/rsie-smax')], [6, 2, 2]);
    });

    scenario('must-revalidate, proxy-revalidate and no-cache forbid serving stale', {}, async ({ origin, clock, get }) => {
      origin.on('/mr', numbered({ 'cache-control': 'max-age=1, must-revalidate, stale-while-revalidate=60, stale-if-error=60' }));
      origin.on('/pr', numbered({ 'cache-control': 'max-age=1, proxy-revalidate' }));
      origin.on('/nc', numbered({ 'cache-control': 'no-cache', etag: '"n"' }));
      for (const p of ['/mr', '/pr', '/nc']) await get(p);
      clock.advance(5 * SECOND);
      assert.match((await get('/mr')).cs, /fwd=stale/);
      assert.match((await get('/pr', { headers: { 'cache-control': 'max-stale' } })).cs, /fwd=stale/);
      assert.match((await get('/nc')).cs, /fwd=stale/);
      assert.deepEqual([origin.count('/mr'), origin.count('/pr'), origin.count('/nc')], [2, 2, 2]);
    });

    // ── invalidation and tags ───────────────────────────────────────────────────────────
    scenario('a successful unsafe method invalidates the URL and its same-origin Location', {}, async ({ origin, get }) => {
      origin.on('/items', (req, k) => (req.method === 'POST' ? reply('created', { location: '/items/1' }, 201) : reply(`list${k}`, { 'cache-control': 'max-age=60' })));
      origin.on('/items/1', numbered({ 'cache-control': 'max-age=60' }));
      origin.on('/fail', (req, k) => (req.method === 'DELETE' ? reply('no', {}, 403) : reply(`f${k}`, { 'cache-control': 'max-age=60' })));
      await get('/items');
      await get('/items/1');
      await get('/fail');
      const post = await get('/items', { method: 'POST', body: 'x' });
      assert.equal(post.status, 201);
      assert.equal(post.cs, 'cachette; fwd=method; fwd-status=201');
      assert.match((await get('/items')).cs, /fwd=uri-miss/);
      assert.match((await get('/items/1')).cs, /fwd=uri-miss/);
      await get('/fail', { method: 'DELETE' });
      assert.match((await get('/fail')).cs, /hit/, 'a failed write invalidates nothing');
    });

    scenario('purges by URL and by tag (Cache-Tag, Surrogate-Key and the tags option)', { tags: (req) => (req.url.includes('/opt') ? ['from-option'] : []) }, async ({ origin, get, cache }) => {
      origin.on('/t1', numbered({ 'cache-control': 'max-age=60', 'cache-tag': 'red, blue' }));
      origin.on('/t2', numbered({ 'cache-control': 'max-age=60', 'surrogate-key': 'blue green' }));
      origin.on('/opt', numbered({ 'cache-control': 'max-age=60' }));
      origin.on('/u', numbered({ 'cache-control': 'max-age=60', vary: 'accept' }));
      for (const p of ['/t1', '/t2', '/opt', '/u']) await get(p);
      assert.equal(await cache.purge({ tag: 'blue' }), 2);
      assert.match((await get('/t1')).cs, /fwd=uri-miss/);
      assert.match((await get('/t2')).cs, /fwd=uri-miss/);
      assert.equal(await cache.purge({ tag: 'from-option' }), 1);
      assert.match((await get('/opt')).cs, /fwd=uri-miss/);
      const url = (await cache.fetch('/u')).url;
      assert.equal(await cache.purge({ url }), 1);
      assert.match((await get('/u')).cs, /fwd=uri-miss/, 'the variants of a purged URL are gone too');
      assert.equal(await cache.purge({ tag: 'never-used' }), 0);
    });

    // ── Cache-Status options ────────────────────────────────────────────────────────────
    scenario('adds key= to Cache-Status and X-Cache when asked', { cacheStatusKey: true, xCache: true }, async ({ origin, get }) => {
      origin.on('/dbg', numbered({ 'cache-control': 'max-age=60' }));
      const miss = await get('/dbg');
      assert.equal(miss.headers.get('x-cache'), 'MISS');
      const hit = await get('/dbg');
      assert.match(hit.cs, /^cachette; hit; ttl=60; key="http:\/\/127\.0\.0\.1:\d+\/dbg"$/);
      assert.equal(hit.headers.get('x-cache'), 'HIT');
      const post = await get('/dbg', { method: 'POST' });
      assert.equal(post.headers.get('x-cache'), 'BYPASS');
    });

    // ── bodies ──────────────────────────────────────────────────────────────────────────
    scenario('streams the body to the client before the origin finishes, and stores the complete copy', {}, async ({ origin, get, cache }) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const enc = new TextEncoder();
      origin.on('/stream', () => new Response(new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(enc.encode('first;'));
          await released;
          c.enqueue(enc.encode('second'));
          c.close();
        },
      }), { headers: { 'cache-control': 'max-age=60' } }));
      const res = await cache.fetch('/stream');
      const reader = res.body!.getReader();
      const first = await reader.read();
      assert.equal(new TextDecoder().decode(first.value), 'first;', 'the first chunk arrives while the origin still holds the rest');
      release();
      let rest = '';
      for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
      assert.equal(rest, 'second');
      await cache.idle();
      const hit = await get('/stream');
      assert.equal(hit.body, 'first;second');
      assert.match(hit.cs, /hit/);
      assert.equal(origin.count('/stream'), 1);
    });

    scenario('serves but does not store a body larger than maxBodyBytes', { maxBodyBytes: 1000 }, async ({ origin, get }) => {
      const big = 'x'.repeat(5000);
      origin.on('/big', () => new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(big)); c.close(); } }), { headers: { 'cache-control': 'max-age=60' } }));
      origin.on('/big-cl', () => reply(big, { 'cache-control': 'max-age=60', 'content-length': '5000' }));
      assert.equal((await get('/big')).body, big);
      assert.equal((await get('/big')).body.length, 5000);
      assert.equal(origin.count('/big'), 2);
      assert.match((await get('/big-cl')).cs, /detail="too-large"/);
      assert.equal(origin.count('/big-cl'), 1);
    });

    scenario('coalesces concurrent misses into one origin request; each client gets the whole body', {}, async ({ origin, cache }) => {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      origin.on('/slow', async (_, k) => {
        await gate;
        return reply(`slow${k}`.repeat(1000), { 'cache-control': 'max-age=60' });
      });
      const pending = Array.from({ length: 5 }, () => cache.fetch('/slow'));
      setTimeout(open, 50);
      const responses = await Promise.all(pending);
      const bodies = await Promise.all(responses.map((r) => r.text()));
      assert.deepEqual(new Set(bodies), new Set(['slow1'.repeat(1000)]));
      assert.equal(origin.count('/slow'), 1);
      assert.equal(responses.filter((r) => /collapsed/.test(r.headers.get('cache-status')!)).length, 4);
    });

    // ── bad input ───────────────────────────────────────────────────────────────────────
    scenario('reads malformed and duplicate Cache-Control, invalid dates and odd ages safely', {}, async ({ origin, clock, get }) => {
      origin.on('/garbage', numbered({ 'cache-control': 'max-age=abc, , =, "unterminated' }));
      origin.on('/dup', numbered({ 'cache-control': 'max-age=60, max-age=0' }));
      origin.on('/huge', numbered({ 'cache-control': 'max-age=99999999999999999999' }));
      origin.on('/negage', numbered({ 'cache-control': 'max-age=60', age: '-5' }));
      origin.on('/quoted', numbered({ 'cache-control': 'max-age="60"' }));
      origin.on('/baddate', numbered({ 'cache-control': 'max-age=60', date: 'yesterday' }));
      for (const p of ['/garbage', '/dup', '/huge', '/negage', '/quoted', '/baddate']) {
        assert.equal((await get(p)).status, 200);
      }
      clock.advance(30 * SECOND);
      assert.equal((await get('/garbage')).body, 'v2', 'an invalid max-age makes the response stale');
      assert.equal((await get('/dup')).cs, 'cachette; hit; ttl=30', 'the first of duplicate directives wins');
      assert.equal((await get('/huge')).cs, `cachette; hit; ttl=${2147483648 - 30}`);
      const neg = await get('/negage');
      assert.equal(neg.age, 30);
      assert.equal((await get('/quoted')).cs, 'cachette; hit; ttl=30');
      assert.equal((await get('/baddate')).cs, 'cachette; hit; ttl=30', 'an invalid Date is replaced by the time of receipt');
    });
    targetedFieldScenarios(scenario);
    rangeScenarios(scenario);
    negotiationScenarios(scenario);
    remainingRuleScenarios(scenario);
    originFailureScenarios(scenario);
    purgeScenarios(scenario);
    storedEntryScenarios(scenario);
  });
}
