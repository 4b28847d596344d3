import assert from 'node:assert/strict';
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, it } from 'vitest';
import { cloudflareKvStore } from '../../adapters/cloudflare-kv/index.ts';
import { withCache } from '../../runtimes/workers/index.ts';
import { createCache, type Cache as Engine } from '../../src/index.ts';
import type { LocationCacheOptions } from '../../src/cache/tiers/location-options.ts';

// The per-location tier inside workerd: two locations simulated as two Cache API namespaces
// (caches.open('a…') and caches.open('b…')) in front of one KV namespace, each with its own
// engine (an isolate of that location). Time is a clock the test moves: nothing sleeps.
describe('locationCache', () => {
  const clock = { t: 1_000_000, now: () => clock.t };
  const store = cloudflareKvStore({ namespace: env.CACHETTE_KV });

  async function locations(mode: Omit<LocationCacheOptions, 'cache'>): Promise<[Engine, Engine]> {
    const namespace = `loc-${crypto.randomUUID()}`;
    const open = async (name: string) => createCache({ store, namespace, clock, closeStore: false, logger: false, locationCache: { ...mode, cache: await caches.open(`${name}-${namespace}`) } });
    return [await open('a'), await open('b')];
  }

  it('verified: after invalidateTags in location a, location b never serves its old copy', async () => {
    const [a, b] = await locations({ mode: 'verified' });
    await a.set('page', 'v1', { tags: ['t'] });
    assert.equal(await b.get('page'), 'v1', 'read from KV, copied into b');
    assert.equal(await b.get('page'), 'v1');
    assert.equal(b.stats().locationConfirmed, 1, "b's copy was served once a store read confirmed it");
    assert.equal(b.stats().locationUnconfirmed, 0, 'verified never serves unconfirmed');
    await a.invalidateTags(['t']);
    assert.equal(await b.get('page'), undefined, "b's copy records the old generation: a miss, not v1");
    assert.equal(b.stats().outdated, 1);
    await a.set('page', 'v2', { tags: ['t'] });
    assert.equal(await b.get('page'), 'v2', 'the new entry, and b copies it');
    assert.equal(await b.get('page'), 'v2');
    assert.equal(b.stats().locationConfirmed, 2);
  });

  it("verified: another location's overwrite of an untagged key is seen at the next read", async () => {
    const [a, b] = await locations({ mode: 'verified' });
    await a.set('k', 1);
    assert.equal(await b.get('k'), 1);
    await a.set('k', 2);
    assert.equal(await b.get('k'), 2);
    await a.delete('k');
    assert.equal(await b.get('k'), undefined);
  });

  it('bounded: a copy is served without the store until maxAge after the read that confirmed it, and counted', async () => {
    const [a, b] = await locations({ mode: 'bounded', maxAge: 1000 });
    await a.set('page', 'v1', { tags: ['t'] });
    const confirmed = clock.t;
    assert.equal(await b.get('page'), 'v1', 'read from KV, copied into b at this time');
    await a.invalidateTags(['t']);
    clock.t = confirmed + 999;
    assert.equal(await b.get('page'), 'v1', 'inside the bound another location can serve the old copy');
    assert.equal(b.stats().locationUnconfirmed, 1, 'and says so');
    clock.t = confirmed + 1000;
    assert.equal(await b.get('page'), undefined, 'at the bound the copy is checked again: outdated');
    assert.equal(b.stats().locationUnconfirmed, 1);
    // A clock that went back never stretches the bound.
    await a.set('page', 'v2', { tags: ['t'] });
    assert.equal(await b.get('page'), 'v2');
    clock.t -= 5000;
    assert.equal(await b.get('page'), 'v2');
    assert.equal(b.stats().locationUnconfirmed, 1, 'confirmed by the store, not served on a clock that went back');
    assert.equal(b.stats().locationConfirmed, 1);
  });

  it("bounded: this isolate's own invalidations and writes drop its copies at once", async () => {
    const [a, b] = await locations({ mode: 'bounded', maxAge: 60_000 });
    await a.set('page', 'v1', { tags: ['t'] });
    clock.t += 1;
    assert.equal(await a.get('page'), 'v1', 'copied after the write, so served unconfirmed next');
    assert.equal(await a.get('page'), 'v1');
    assert.equal(a.stats().locationUnconfirmed, 1);
    await a.invalidateTags(['t']);
    assert.equal(await a.get('page'), undefined, "a's own invalidation reached a's copy");
    await a.set('page', 'v2', { tags: ['t'] });
    assert.equal(await a.get('page'), 'v2', "a's own write replaced it");
    await b.set('other', 'x');
    assert.equal(await b.get('other'), 'x');
    await b.delete('other');
    assert.equal(await b.get('other'), undefined, "b's own delete reached b's copy");
  });

  it('does not copy entries over maxBytes', async () => {
    const namespace = `loc-${crypto.randomUUID()}`;
    const cache = createCache({ store, namespace, clock, logger: false, locationCache: { mode: 'bounded', maxAge: 60_000, maxBytes: 256, cache: await caches.open(namespace) } });
    await cache.set('big', 'x'.repeat(1000));
    await cache.set('small', 'x');
    clock.t += 1;
    for (let i = 0; i < 2; i++) assert.deepEqual([(await cache.get<string>('big'))?.length, await cache.get('small')], [1000, 'x']);
    assert.equal(cache.stats().locationUnconfirmed, 1, 'only the small entry was served from the location');
  });

  it('opens caches.default by default, and checks its options', async () => {
    const namespace = `loc-${crypto.randomUUID()}`;
    const cache = createCache({ store, namespace, clock, logger: false, locationCache: { mode: 'bounded', maxAge: '1m' } });
    await cache.set('k', 'v');
    clock.t += 1;
    assert.equal(await cache.get('k'), 'v');
    assert.equal(await cache.get('k'), 'v');
    assert.equal(cache.stats().locationUnconfirmed, 1);
    assert.ok(await (caches as CacheStorage & { default: Cache }).default.match(`https://cachette.invalid/${encodeURIComponent(`cachette:${namespace}:k`)}`), 'under a synthetic URL of its own');
    assert.throws(() => createCache({ store, locationCache: { mode: 'bounded' } }), /mode "bounded" needs maxAge/);
    assert.throws(() => createCache({ store, locationCache: { mode: 'verified', maxAge: 5 } }), /maxAge applies to mode: "bounded" only/);
    assert.throws(() => createCache({ store, locationCache: { mode: 'eventual' as 'bounded', maxAge: 5 } }), /mode must be "verified" or "bounded"/);
    assert.throws(() => createCache({ store, l1: {}, locationCache: { mode: 'verified' } }), /locationCache and l1 cannot be combined/);
  });

  it("withCache: responses are copied into the location and served from there within the bound, KV's copy gone", async () => {
    const app = { fetch: async (request: Request) => new Response(`hello ${new URL(request.url).pathname}`, { headers: { 'cache-control': 'public, max-age=60' } }) };
    const namespace = `loc-${crypto.randomUUID()}`;
    const worker = withCache(app, { log: false, namespace, locationCache: { mode: 'bounded', maxAge: '1m', cache: namespace } });
    assert.throws(() => withCache(app, { locationCache: { mode: 'bounded' } }), /mode "bounded" needs maxAge/, 'checked where withCache runs');
    const bindings = { CACHETTE_KV: env.CACHETTE_KV };
    const url = `http://127.0.0.1:8787/${namespace}`;
    const ctx = createExecutionContext();
    await (await worker.fetch(new Request(url), bindings, ctx)).text();
    await waitOnExecutionContext(ctx);
    // A copy confirmed in the millisecond of this isolate's own write is checked, not served
    // unconfirmed: let workerd's clock (which moves only with I/O) pass the write first.
    const written = Date.now();
    while (Date.now() <= written) await env.CACHETTE_KV.get('clock-tick');
    assert.match((await worker.fetch(new Request(url), bindings, createExecutionContext())).headers.get('cache-status') ?? '', /; hit/, 'read from KV and copied');
    const stored = (await env.CACHETTE_KV.list({ prefix: `cachette:${namespace}:` })).keys;
    assert.ok(stored.length > 0);
    for (const { name } of stored) await env.CACHETTE_KV.delete(name);
    const third = await worker.fetch(new Request(url), bindings, createExecutionContext());
    assert.match(third.headers.get('cache-status') ?? '', /; hit/, 'served by the location copy, not asking KV');
    assert.equal(await third.text(), `hello /${namespace}`);
  });
});
