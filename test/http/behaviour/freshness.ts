/** Freshness (RFC 9111 §4.2) and the request directives that select what may be reused (§5.2.1). */
import assert from 'node:assert/strict';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { reply } from '../scripted-origin.ts';
import { DAY, HOUR, MINUTE, numbered, SECOND, type ScenarioFn } from './harness.ts';

export function freshnessScenarios(scenario: ScenarioFn): void {
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
}
