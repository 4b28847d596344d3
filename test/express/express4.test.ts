// cachette/express on Express 4 (installed as `express4`): the same capture, keys with the port
// and no deprecation warning, `trust proxy` honoured as Express 4 does.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express4 from 'express4';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cache } from '../../runtimes/node-http/express/index.ts';

const store = memoryStore();
afterAll(() => store.close());

describe('cachette/express on Express 4', () => {
  it('serves json and files from the cache, keyed by the URL with its port, without deprecation warnings', async () => {
    const deprecations: unknown[] = [];
    const onDeprecation = (warning: unknown) => deprecations.push(warning);
    process.on('deprecation', onDeprecation);
    const app = express4();
    const middleware = cache({ store, namespace: 'express4-a', ttl: '1m' });
    let calls = 0;
    app.use('/api', middleware);
    app.get('/api/json', (_req, res) => void res.json({ calls: ++calls }));
    app.get('/api/file', (_req, res) => void res.sendFile(fileURLToPath(new URL('../../LICENSE', import.meta.url)), { maxAge: 60_000 }));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/api/json', '/api/file']) {
        const miss = await fetch(base + path);
        const body = await miss.text();
        await middleware.idle();
        const hit = await fetch(base + path);
        assert.equal(await hit.text(), body, path);
        assert.match(hit.headers.get('cache-status') ?? '', /; hit/, path);
      }
      assert.equal(calls, 1);
      assert.equal(await middleware.purge({ url: `${base}/api/json` }), 1, 'the key has the port');
      assert.deepEqual(deprecations, []);
    } finally {
      process.off('deprecation', onDeprecation);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await middleware.close();
    }
  });

  it('keys by the forwarded host when the app trusts its proxy', async () => {
    const app = express4();
    app.set('trust proxy', true);
    const middleware = cache({ store, namespace: 'express4-b', ttl: '1m' });
    app.use(middleware);
    app.get('/page', (req, res) => void res.send(`page for ${req.hostname}`));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/page`, { headers: { 'x-forwarded-host': 'public.example' } });
      assert.equal(await res.text(), 'page for public.example');
      await middleware.idle();
      assert.equal(await middleware.purge({ url: 'http://public.example/page' }), 1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await middleware.close();
    }
  });
});
