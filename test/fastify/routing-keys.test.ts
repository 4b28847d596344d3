// The routing-key rule on Fastify 5 and Fastify 4: Fastify routes on the request target and the
// Host as the client sent them, the cache keys on their normalised URL.
import Fastify from 'fastify';
import Fastify4 from 'fastify4';
import { afterAll, describe } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import cache from '../../runtimes/node-http/fastify/index.ts';
import { routingKeyScenarios } from '../http/routing-key-scenarios.ts';

const store = memoryStore();
afterAll(() => store.close());

const flavours = [
  { name: 'Fastify 5', make: Fastify },
  { name: 'Fastify 4', make: Fastify4 as unknown as typeof Fastify },
] as const;

let namespaces = 0;

for (const flavour of flavours) {
  describe(`cachette/fastify on ${flavour.name}: the key is what the app routes on`, () =>
    routingKeyScenarios(async () => {
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
      return {
        port: (app.server.address() as { port: number }).port,
        idle: () => app.cache.idle(),
        purge: (target) => app.cache.purge(target),
        async close() {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    }));
}
