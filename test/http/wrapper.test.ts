/** Node-only checks of the wrapper and bindings beyond the shared behaviour suite. */
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startProxy } from '../../products/proxy/index.ts';
import { cache } from '../../src/bindings/hono/index.ts';
import { withCache } from '../../src/http/index.ts';
import { freePort } from '../support/redis-server.ts';
import { serveFetch } from './node-serve.ts';
import { FakeClock, reply, ScriptedOrigin } from './scripted-origin.ts';

describe('withCache wrapper', () => {
  it('hands store writes and background refreshes to ctx.waitUntil', async () => {
    const clock = new FakeClock();
    const origin = new ScriptedOrigin(clock).on('/w', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=1, stale-while-revalidate=60' }));
    const cached = withCache(origin.fetch, { store: memoryStore(), now: clock.now });
    const waited: Array<Promise<unknown>> = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waited.push(p) };
    assert.equal(await (await cached(new Request('http://x/w'), ctx)).text(), 'v1');
    assert.equal(waited.length, 1, 'the store write');
    await Promise.all(waited);
    clock.advance(5000);
    assert.equal(await (await cached(new Request('http://x/w'), ctx)).text(), 'v1');
    assert.equal(waited.length, 3, 'the background revalidation and the store write it makes');
    await Promise.all(waited);
    assert.equal(origin.count('/w'), 2);
    assert.equal(await (await cached(new Request('http://x/w'), ctx)).text(), 'v2');
    await cached.close();
  });

  it('answers from the origin when the store is down (never a 500 from the cache layer)', async () => {
    const dead = valkeyStore({ connection: `redis://127.0.0.1:${await freePort()}`, clientOptions: { retryStrategy: () => null, lazyConnect: true } });
    const origin = new ScriptedOrigin(new FakeClock()).on('/down', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=60' }));
    const errors: unknown[] = [];
    const cached = withCache(origin.fetch, { store: dead, onError: (e) => errors.push(e) });
    for (let i = 1; i <= 3; i++) {
      const res = await cached(new Request('http://x/down'));
      assert.equal(res.status, 200);
      assert.equal(await res.text(), `v${i}`);
      await cached.idle();
    }
    assert.equal(origin.count('/down'), 3);
    assert.ok(cached.httpCache.cache.stats().storeErrors > 0, 'the failures are counted by the engine');
    await cached.close();
    await dead.close();
  });

  it('rethrows an origin failure when no stale response may stand in', async () => {
    const cached = withCache(
      async () => {
        throw new Error('boom');
      },
      { store: memoryStore() },
    );
    await assert.rejects(cached(new Request('http://x/')), /boom/);
  });
});

describe('Hono middleware', () => {
  it('without `app`, revalidates a stale-while-revalidate response in the foreground', async () => {
    const clock = new FakeClock();
    const origin = new ScriptedOrigin(clock).on('/api/x', (_, k) => reply(`v${k}`, { 'cache-control': 'max-age=1, stale-while-revalidate=60' }));
    const app = new Hono();
    const mw = cache({ store: memoryStore(), now: clock.now });
    app.use('/api/*', mw);
    app.get('/api/*', (c) => origin.fetch(c.req.raw));
    app.get('/other', (c) => c.text('not cached'));
    assert.equal(await (await app.request('http://h/api/x')).text(), 'v1');
    await mw.idle();
    clock.advance(5000);
    const res = await app.request('http://h/api/x');
    assert.equal(await res.text(), 'v2');
    assert.match(res.headers.get('cache-status')!, /fwd=stale; fwd-status=200/);
    const other = await app.request('http://h/other');
    assert.equal(other.headers.get('cache-status'), null, 'routes outside the middleware are untouched');
    await mw.close();
  });

  it('without `app`, answers 502 when a 304 matches no stored response and the client had no validator it satisfies', async () => {
    const clock = new FakeClock();
    const origin = new ScriptedOrigin(clock).on('/api/m', (req, k) => {
      if (k === 1) return reply('old', { etag: '"a"', 'cache-control': 'max-age=1' });
      if (req.headers.has('if-none-match')) return reply(null, { etag: '"b"' }, 304);
      return reply(`new${k}`, { etag: '"b"', 'cache-control': 'max-age=60' });
    });
    const app = new Hono();
    const mw = cache({ store: memoryStore(), now: clock.now });
    app.use('/api/*', mw);
    app.get('/api/*', (c) => origin.fetch(c.req.raw));
    assert.equal(await (await app.request('http://h/api/m')).text(), 'old');
    await mw.idle();
    clock.advance(5000);
    // `next` runs once per request: the full response cannot be fetched again within it.
    const res = await app.request('http://h/api/m');
    assert.equal(res.status, 502);
    assert.equal(await res.text(), '');
    assert.equal(res.headers.get('cache-status'), 'cachette; fwd=stale; fwd-status=304; detail="validator-mismatch"');
    await mw.idle();
    const next = await app.request('http://h/api/m');
    assert.equal(await next.text(), 'new3', 'the outdated copy was dropped, so the next request fetches in full');
    assert.equal(origin.count('/api/m'), 3);
    await mw.close();
  });
});

describe('reverse proxy', () => {
  it('passes bodies, methods and encoded bytes through unchanged, and answers 502 when the origin is gone', async () => {
    const gz = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]);
    const served = await serveFetch(async (req) => {
      if (req.method === 'PUT') return reply(`echo:${await req.text()}`);
      return new Response(gz, { headers: { 'content-encoding': 'gzip', 'cache-control': 'max-age=60' } });
    });
    const store = memoryStore();
    const proxy = await startProxy({ origin: served.url, store });
    const put = await fetch(`${proxy.url}/p?q=1`, { method: 'PUT', body: 'payload' });
    assert.equal(await put.text(), 'echo:payload');
    // A raw byte check needs a client that does not decode gzip: node:http.
    const { request } = await import('node:http');
    const raw = await new Promise<Buffer>((resolve, reject) => {
      request(`${proxy.url}/gz`, (res) => {
        const parts: Buffer[] = [];
        res
          .on('data', (c: Buffer) => parts.push(c))
          .on('end', () => resolve(Buffer.concat(parts)))
          .on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    assert.deepEqual([...raw], [...gz]);
    await served.close();
    const gone = await fetch(`${proxy.url}/never-stored`);
    assert.equal(gone.status, 502);
    await proxy.close();
  });
});
