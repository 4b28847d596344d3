/** Invalidation by unsafe methods (RFC 9111 §4.4), tags and purge, and the Cache-Status options. */
import assert from 'node:assert/strict';
import { reply } from '../scripted-origin.ts';
import { numbered, type ScenarioFn } from './harness.ts';

export function invalidationScenarios(scenario: ScenarioFn): void {
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
    origin.on('/tv', numbered({ 'cache-control': 'max-age=60', 'cache-tag': 'red', vary: 'accept' }));
    for (const p of ['/t1', '/t2', '/opt', '/u', '/tv']) await get(p);
    // A tag purge resolves 1 once the tag is invalidated: its entries are not listed, so not counted.
    assert.equal(await cache.purge({ tag: 'blue' }), 1);
    assert.match((await get('/t1')).cs, /fwd=uri-miss/);
    assert.match((await get('/t2')).cs, /fwd=uri-miss/);
    assert.match((await get('/tv')).cs, /^cachette; hit/, 'another tag is untouched');
    assert.equal(await cache.purge({ tag: 'red' }), 1);
    assert.match((await get('/tv')).cs, /fwd=vary-miss/, 'a tagged variant is purged too');
    assert.match((await get('/t2')).cs, /^cachette; hit/, 'what was stored after a purge is current');
    assert.equal(await cache.purge({ tag: 'from-option' }), 1);
    assert.match((await get('/opt')).cs, /fwd=uri-miss/);
    const url = (await cache.fetch('/u')).url;
    assert.equal(await cache.purge({ url }), 1);
    assert.match((await get('/u')).cs, /fwd=uri-miss/, 'the variants of a purged URL are gone too');
    assert.equal(await cache.purge({ tag: 'never-used' }), 1);
  });

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
}
