/**
 * README's Hono line, as written (issue 13, item 3.1): a route that sends no Cache-Control is
 * cached for `ttl`, and stale-while-revalidate refreshes in the background through `app`.
 */
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cache } from '../../src/bindings/hono/index.ts';
import { ownCacheStatus } from './behaviour/harness.ts';

describe("README's Hono snippet", () => {
  it('caches an ordinary route and revalidates stale-while-revalidate responses in the background', async () => {
    const store = memoryStore();
    let items = 0;
    let reports = 0;
    let gate: Promise<void> = Promise.resolve();
    // ── as in README ──
    const app = new Hono();
    app.use('/api/*', cache({ store, ttl: '30s', app }));
    // ──
    app.get('/api/items', (c) => c.json({ items: ++items }));
    app.get('/api/report', async (c) => {
      const n = ++reports;
      await gate;
      // Already past its max-age when it leaves (Age 100 > 60), still within stale-while-revalidate.
      c.header('cache-control', 'max-age=60, stale-while-revalidate=600');
      c.header('age', '100');
      return c.json({ report: n });
    });

    const first = await app.request('http://localhost/api/items');
    assert.deepEqual(await first.json(), { items: 1 });
    assert.match(ownCacheStatus(first.headers.get('cache-status')), /fwd=uri-miss; fwd-status=200; ttl=(29|30); stored/);
    const second = await app.request('http://localhost/api/items');
    assert.deepEqual(await second.json(), { items: 1 }, 'a route without Cache-Control is served from the cache for ttl');
    assert.match(ownCacheStatus(second.headers.get('cache-status')), /^cachette; hit/);

    assert.deepEqual(await (await app.request('http://localhost/api/report')).json(), { report: 1 });
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    // The refresh waits at the gate, yet the client is answered at once with the stale copy.
    const stale = await app.request('http://localhost/api/report');
    assert.deepEqual(await stale.json(), { report: 1 });
    assert.match(ownCacheStatus(stale.headers.get('cache-status')), /^cachette; hit; ttl=-4[01]/);
    assert.equal(reports, 2, 'the background refresh reached the route through app');
    for (let i = 0; i < 3; i++) assert.deepEqual(await (await app.request('http://localhost/api/report')).json(), { report: 1 });
    assert.equal(reports, 2, 'one refresh at a time: stale copies meanwhile');
    open();
    let refreshed: unknown;
    for (let attempt = 0; attempt < 100 && (refreshed as { report?: number } | undefined)?.report !== 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      refreshed = await (await app.request('http://localhost/api/report')).json();
    }
    assert.deepEqual(refreshed, { report: 2 }, 'the refreshed copy replaced the stale one');
  });
});
