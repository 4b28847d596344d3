/** The remaining RFC rules: POST with Content-Location, must-understand, If-Modified-Since without Last-Modified, odd origin statuses, Set-Cookie policies. */
import assert from 'node:assert/strict';
import { formatHttpDate } from '../../../src/http/rules/http-date.ts';
import { reply } from '../scripted-origin.ts';
import { numbered, SECOND, type ScenarioFn } from './harness.ts';

/**
 * A response with a status no fetch Response may have. Where the platform's Response refuses
 * it (the standard one does), a Response-shaped object stands in, as a non-standard origin
 * client could return; under @hono/node-server's lazy Response the real thing is built.
 */
function oddStatusResponse(status: number): Response {
  try {
    return new Response('odd', { status });
  } catch {
    return { status, statusText: '', ok: false, headers: new Headers(), body: null, bodyUsed: false } as unknown as Response;
  }
}

export function remainingRuleScenarios(scenario: ScenarioFn): void {
  scenario('a POST response with explicit freshness and its own URL in Content-Location answers later GETs', {}, async ({ origin, get }) => {
    origin.on('/doc', (req, k) =>
      req.method === 'POST' ? reply(`posted${k}`, { 'cache-control': 'max-age=60', 'content-location': new URL(req.url).pathname }, 200) : reply(`got${k}`, { 'cache-control': 'max-age=60' }),
    );
    origin.on('/other', (req, k) =>
      req.method === 'POST' ? reply(`posted${k}`, { 'cache-control': 'max-age=60', 'content-location': '/elsewhere' }, 200) : reply(`got${k}`, { 'cache-control': 'max-age=60' }),
    );
    origin.on('/nofresh', (req, k) => (req.method === 'POST' ? reply(`posted${k}`, { 'content-location': '/nofresh' }) : reply(`got${k}`, { 'cache-control': 'max-age=60' })));
    const post = await get('/doc', { method: 'POST', body: 'x' });
    assert.equal(post.body, 'posted1');
    assert.match(post.cs, /fwd=method; fwd-status=200; ttl=60; stored/);
    const hit = await get('/doc');
    assert.equal(hit.body, 'posted1');
    assert.match(hit.cs, /^cachette; hit/);
    assert.equal((await get('/doc', { method: 'HEAD' })).status, 200);
    await get('/other', { method: 'POST', body: 'x' });
    assert.equal((await get('/other')).body, 'got2', 'Content-Location names another URL: not stored');
    await get('/nofresh', { method: 'POST', body: 'x' });
    assert.equal((await get('/nofresh')).body, 'got2', 'no explicit freshness: not stored');
    assert.deepEqual([origin.count('/doc'), origin.count('/other'), origin.count('/nofresh')], [1, 2, 2]);
  });

  scenario('must-understand lets an understood status be stored despite no-store, and forbids storing others', {}, async ({ origin, get }) => {
    origin.on('/mu', numbered({ 'cache-control': 'must-understand, no-store, max-age=60' }));
    origin.on('/mu299', numbered({ 'cache-control': 'must-understand, no-store, max-age=60' }, 299));
    origin.on('/mu-private', numbered({ 'cache-control': 'must-understand, private, max-age=60' }));
    await get('/mu');
    assert.equal((await get('/mu')).body, 'v1');
    await get('/mu299');
    const unknown = await get('/mu299');
    assert.equal(unknown.body, 'v2');
    assert.match(unknown.cs, /detail="must-understand"/);
    await get('/mu-private');
    assert.equal((await get('/mu-private')).body, 'v2', 'private still applies');
  });

  scenario('If-Modified-Since against a stored response without Last-Modified is judged by its Date', {}, async ({ origin, clock, get }) => {
    origin.on('/nolm', numbered({ 'cache-control': 'max-age=600' }));
    await get('/nolm');
    const stored = clock.now();
    const conditional = (since: number) => ({ headers: { 'cache-control': 'no-transform', 'if-modified-since': formatHttpDate(since) } });
    clock.advance(10 * SECOND);
    assert.equal((await get('/nolm', conditional(stored))).status, 304);
    assert.equal((await get('/nolm', conditional(stored + 5 * SECOND))).status, 304);
    assert.equal((await get('/nolm', conditional(stored - 5 * SECOND))).status, 200);
    assert.equal(origin.count('/nolm'), 1);
  });

  scenario('an origin status outside 100–599 is answered 502 with a clear message, and stale-if-error still applies', {}, async ({ origin, clock, get }) => {
    origin.on('/odd', (_, k) => (k === 1 ? reply('good', { 'cache-control': 'max-age=1, stale-if-error=60' }) : oddStatusResponse(999)));
    origin.on('/odd-cold', () => oddStatusResponse(999));
    const cold = await get('/odd-cold');
    assert.equal(cold.status, 502);
    assert.match(cold.body, /999/);
    await get('/odd');
    clock.advance(10 * SECOND);
    const stale = await get('/odd');
    assert.equal(stale.status, 200);
    assert.equal(stale.body, 'good');
    assert.match(stale.cs, /detail="stale-if-error"/);
    clock.advance(100 * SECOND);
    assert.equal((await get('/odd')).status, 502);
  });

  scenario('setCookie: store keeps the Set-Cookie header in the stored response', { setCookie: 'store' }, async ({ origin, get }) => {
    origin.on('/c', numbered({ 'cache-control': 'max-age=60', 'set-cookie': 'shared=1' }));
    await get('/c');
    const hit = await get('/c');
    assert.match(hit.cs, /^cachette; hit/);
    assert.equal(hit.headers.get('set-cookie'), 'shared=1');
    assert.equal(origin.count('/c'), 1);
  });
}
