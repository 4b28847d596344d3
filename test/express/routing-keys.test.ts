// Issue 23, items 1 and 3: Express routes on the request target and the Host as the client sent
// them, the cache keys on their normalised URL. A request whose target or Host normalisation
// would change (dot segments, %2e%2e, backslashes, an escaped or upper-case host, a default
// port) must go past the cache, on Express 5 and on Express 4. Over raw sockets: fetch would
// normalise the very bytes under test.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cache } from '../../runtimes/express/index.ts';
import { parseResponses, wireHeader, type WireResponse } from '../http/wire.ts';
import { rawGet } from '../proxy/support.ts';

const store = memoryStore();
afterAll(() => store.close());

/** Express 5 and Express 4, with the wildcard syntax each one's router takes. */
const flavours = [
  { name: 'Express 5', make: express, wildcard: '/echo/*rest' },
  { name: 'Express 4', make: express4, wildcard: '/echo/*' },
] as const;

let namespaces = 0;

async function answer(port: number, target: string, host: string): Promise<WireResponse> {
  const reply = await rawGet(port, target, { host });
  const [response] = parseResponses(reply.text).responses;
  assert.ok(response, `no response to ${target}: ${JSON.stringify(reply.text.slice(0, 200))}`);
  return response;
}

for (const flavour of flavours) {
  describe(`cachette/express on ${flavour.name}: the key is what the app routes on`, () => {
    async function start() {
      const app = flavour.make();
      const middleware = cache({ store, namespace: `routing-${namespaces++}`, ttl: '1m' });
      app.use(middleware);
      // A route that reflects its path, and a canonical-host redirect, both answered with the default headers.
      app.get(flavour.wildcard, (req, res) => void res.type('html').send(`echo ${req.path}`));
      app.get('/home', (req, res) => {
        if (req.hostname !== 'shop.example') return void res.redirect(301, 'https://shop.example/home');
        res.type('html').send('home');
      });
      const server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const port = (server.address() as AddressInfo).port;
      return {
        port,
        middleware,
        async close() {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          await middleware.close();
        },
      };
    }

    it('does not store what a target with dot segments, %2e%2e or backslashes routed to under the normalised URL', async () => {
      const app = await start();
      try {
        for (const target of ['/echo/../home', '/echo/%2e%2e/home', '/echo/%2E%2E/home', '/echo/x/..\\..\\home', '/echo/./../home']) {
          const hostile = await answer(app.port, target, 'shop.example');
          assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${target}: past the cache`);
          await app.middleware.idle();
          const home = await answer(app.port, '/home', 'shop.example');
          assert.equal(home.body, 'home', `${target} poisoned /home`);
          assert.match(wireHeader(home, 'cache-status') ?? '', /fwd=uri-miss/, `${target}: /home was never stored`);
          await app.middleware.purge({ url: 'http://shop.example/home' });
        }
        // A target normalisation leaves alone is cached as before.
        assert.match(wireHeader(await answer(app.port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /stored/);
        await app.middleware.idle();
        assert.match(wireHeader(await answer(app.port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /hit/);
      } finally {
        await app.close();
      }
    });

    it('does not store the answer to a Host that normalises to another name (escaped, upper-case, default port, IPv4 shorthand)', async () => {
      const app = await start();
      try {
        for (const host of ['sh%6Fp.example', 'SHOP.example', 'shop.example:80', '127.1']) {
          const hostile = await answer(app.port, '/home', host);
          // The app redirects every name but its own (`shop.example:80` is its own name to Express).
          assert.equal(hostile.status, host === 'shop.example:80' ? 200 : 301, host);
          assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${host}: past the cache`);
          await app.middleware.idle();
          const visitor = await answer(app.port, '/home', 'shop.example');
          assert.equal(visitor.status, 200, `${host} stored its redirect for shop.example`);
          assert.equal(visitor.body, 'home');
          await app.middleware.purge({ url: 'http://shop.example/home' });
        }
      } finally {
        await app.close();
      }
    });
  });
}
