/** Serving stale: stale-while-revalidate and stale-if-error (RFC 5861), and what forbids it. */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { numbered, SECOND, type ScenarioFn } from './harness.ts';

export function staleScenarios(scenario: ScenarioFn): void {
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
    assert.equal((await get('/rsie', { headers: { 'cache-control': 'stale-if-error=5' } })).status, 503, "past the request's own window");
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
}
