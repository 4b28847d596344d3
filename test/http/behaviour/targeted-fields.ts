/** Targeted cache-control fields: CDN-Cache-Control (RFC 9213), parsed as a Structured Fields Dictionary (RFC 8941). */
import assert from 'node:assert/strict';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { HOUR, numbered, SECOND, type ScenarioFn } from './harness.ts';

export function targetedFieldScenarios(scenario: ScenarioFn): void {
  scenario('CDN-Cache-Control replaces Cache-Control and Expires, and is passed on unchanged', {}, async ({ origin, clock, get }) => {
    origin.on('/cdn-no-store', numbered({ 'cdn-cache-control': 'no-store', 'cache-control': 'max-age=10000' }));
    origin.on('/cc-no-store', numbered({ 'cache-control': 'no-store', 'cdn-cache-control': 'max-age=10000' }));
    origin.on('/expires', numbered({ 'cdn-cache-control': 'max-age=10', expires: formatHttpDate(clock.now() + HOUR) }));
    await get('/cdn-no-store');
    const again = await get('/cdn-no-store');
    assert.equal(again.body, 'v2', 'CDN-Cache-Control: no-store wins over Cache-Control: max-age');
    assert.match(again.cs, /detail="no-store"/);
    const first = await get('/cc-no-store');
    assert.match(first.cs, /ttl=10000; stored/);
    assert.equal(first.headers.get('cdn-cache-control'), 'max-age=10000', 'the field goes downstream unchanged');
    const hit = await get('/cc-no-store');
    assert.equal(hit.body, 'v1', 'Cache-Control: no-store is replaced by the targeted field');
    assert.equal(hit.headers.get('cdn-cache-control'), 'max-age=10000');
    assert.equal(hit.headers.get('cache-control'), 'no-store', 'Cache-Control goes downstream unchanged too');
    await get('/expires');
    clock.advance(20 * SECOND);
    assert.match((await get('/expires')).cs, /fwd=stale/, 'Expires is ignored when a targeted field applies');
    assert.deepEqual([origin.count('/cdn-no-store'), origin.count('/cc-no-store'), origin.count('/expires')], [2, 1, 2]);
  });

  scenario('an invalid or empty CDN-Cache-Control is ignored as a whole', {}, async ({ origin, clock, get }) => {
    origin.on('/string', numbered({ 'cdn-cache-control': 'max-age="10000"', 'cache-control': 'max-age=5' }));
    origin.on('/garbage', numbered({ 'cdn-cache-control': 'max-age=10000, &&&&', 'cache-control': 'max-age=5' }));
    origin.on('/negative', numbered({ 'cdn-cache-control': 'max-age=-1', 'cache-control': 'max-age=5' }));
    origin.on('/empty', numbered({ 'cdn-cache-control': '', 'cache-control': 'max-age=5' }));
    origin.on('/flag', numbered({ 'cdn-cache-control': 'no-store=3', 'cache-control': 'max-age=5' }));
    for (const p of ['/string', '/garbage', '/negative', '/empty', '/flag']) assert.match((await get(p)).cs, /ttl=5; stored/, p);
    clock.advance(10 * SECOND);
    for (const p of ['/string', '/garbage', '/negative', '/empty', '/flag']) assert.match((await get(p)).cs, /fwd=stale/, `${p}: Cache-Control's max-age=5 applied`);
  });

  scenario('a CDN-Cache-Control max-age beyond 2^31 is capped, and Age counts against it', {}, async ({ origin, clock, get }) => {
    origin.on('/huge', numbered({ 'cdn-cache-control': 'max-age=99999999999999' }));
    origin.on('/aged', numbered({ 'cdn-cache-control': 'max-age=60', age: '50' }));
    assert.match((await get('/huge')).cs, new RegExp(`ttl=${2 ** 31}; stored`));
    assert.match((await get('/aged')).cs, /ttl=10; stored/);
    clock.advance(15 * SECOND);
    assert.equal((await get('/huge')).body, 'v1');
    assert.match((await get('/aged')).cs, /fwd=stale/);
  });

  scenario('targetedFields names the fields in order of precedence', { targetedFields: ['Acme-CDN-Cache-Control', 'CDN-Cache-Control'] }, async ({ origin, clock, get }) => {
    origin.on('/both', numbered({ 'acme-cdn-cache-control': 'max-age=100', 'cdn-cache-control': 'max-age=10', 'cache-control': 'no-store' }));
    origin.on('/fallback', numbered({ 'acme-cdn-cache-control': 'max-age=x', 'cdn-cache-control': 'max-age=10' }));
    assert.match((await get('/both')).cs, /ttl=100; stored/);
    assert.match((await get('/fallback')).cs, /ttl=10; stored/, 'an invalid first field falls through to the next');
    clock.advance(50 * SECOND);
    assert.equal((await get('/both')).body, 'v1');
  });

  scenario('targetedFields: false ignores CDN-Cache-Control', { targetedFields: false }, async ({ origin, get }) => {
    origin.on('/ignored', numbered({ 'cdn-cache-control': 'max-age=10000', 'cache-control': 'no-store' }));
    await get('/ignored');
    assert.equal((await get('/ignored')).body, 'v2');
  });
}
