// The routing-key rule on Fastify 5 and Fastify 4: Fastify routes on the request target and the
// Host as the client sent them, the cache keys on their normalised URL. A request whose target
// or Host normalisation would change (dot segments, %2e%2e, backslashes, an escaped or
// upper-case host, a default port, an IPv4 shorthand) must go past the cache. Over raw sockets:
// fetch would normalise the very bytes under test.
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import Fastify4 from 'fastify4';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import cache from '../../runtimes/fastify/index.ts';
import { parseResponses, wireHeader, type WireResponse } from '../http/wire.ts';
import { rawGet } from '../proxy/support.ts';

const store = memoryStore();
afterAll(() => store.close());

const flavours = [
  { name: 'Fastify 5', make: Fastify },
  { name: 'Fastify 4', make: Fastify4 as unknown as typeof Fastify },
] as const;

let namespaces = 0;

async function answer(port: number, target: string, host: string): Promise<WireResponse> {
  const reply = await rawGet(port, target, { host });
  const [response] = parseResponses(reply.text).responses;
  assert.ok(response, `no response to ${target}: ${JSON.stringify(reply.text.slice(0, 200))}`);
  return response;
}

for (const flavour of flavours) {
  describe(`cachette/fastify on ${flavour.name}: the key is what the app routes on`, () => {
    async function start() {
      const app = flavour.make();
      await app.register(cache, { store, namespace: `fastify-routing-${namespaces++}`, ttl: '1m' });
      // A route that reflects its path, and a canonical-host redirect (on the name without its port).
      app.get('/echo/*', async (request, reply) => reply.type('text/html').send(`echo ${request.url}`));
      app.get('/home', async (request, reply) => {
        const host = (request.headers.host ?? '').replace(/:\d+$/, '');
        if (host !== 'shop.example') return reply.code(301).header('location', 'https://shop.example/home').send();
        return reply.type('text/html').send('home');
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as { port: number }).port;
      return {
        port,
        app,
        async close() {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    }

    it('does not store what a target with dot segments, %2e%2e or backslashes routed to under the normalised URL', async () => {
      const { app, port, close } = await start();
      try {
        for (const target of ['/echo/../home', '/echo/%2e%2e/home', '/echo/%2E%2E/home', '/echo/x/..\\..\\home', '/echo/./../home']) {
          const hostile = await answer(port, target, 'shop.example');
          assert.match(hostile.body, /^echo /, `${target} ran the echo route`);
          assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${target}: past the cache`);
          await app.cache.idle();
          const home = await answer(port, '/home', 'shop.example');
          assert.equal(home.body, 'home', `${target} poisoned /home`);
          assert.match(wireHeader(home, 'cache-status') ?? '', /fwd=uri-miss/, `${target}: /home was never stored`);
          await app.cache.purge({ url: 'http://shop.example/home' });
        }
        // A target normalisation leaves alone is cached as before.
        assert.match(wireHeader(await answer(port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /stored/);
        await app.cache.idle();
        assert.match(wireHeader(await answer(port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /hit/);
      } finally {
        await close();
      }
    });

    it('does not store the answer to a Host that normalises to another name (escaped, upper-case, default port, IPv4 shorthand)', async () => {
      const { app, port, close } = await start();
      try {
        for (const host of ['sh%6Fp.example', 'SHOP.example', 'shop.example:80', '127.1']) {
          const hostile = await answer(port, '/home', host);
          assert.equal(hostile.status, host === 'shop.example:80' ? 200 : 301, host);
          assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${host}: past the cache`);
          await app.cache.idle();
          const visitor = await answer(port, '/home', 'shop.example');
          assert.equal(visitor.status, 200, `${host} stored its redirect for shop.example`);
          assert.equal(visitor.body, 'home');
          await app.cache.purge({ url: 'http://shop.example/home' });
        }
      } finally {
        await close();
      }
    });
  });
}
