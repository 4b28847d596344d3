/**
 * A Fastify 5 app with cachette: whole responses under /api through the `cachette/fastify`
 * plugin, registered in the /api context only, and a slow lookup cached by its arguments with
 * `cache.wrap`. Imports only the package's public entry points. Run:
 * `npx tsx examples/fastify/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to share both caches
 * through Valkey; memory otherwise), then `curl -i` a URL below twice.
 */
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { createCache } from 'cachette';
import cache, { storeFromEnv } from 'cachette/fastify';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
const fragments = createCache({ store, prefix: 'example', ttl: '1m' });

/** Stands in for a database query: slow, and called once per id while its entry is fresh. */
const loadProduct = fragments.wrap(async function loadProduct(id: string) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { id, name: `Product ${id}`, loadedAt: new Date().toISOString() };
});

const app = Fastify();
app.get('/', async (_request, reply) => {
  reply.type('text/plain');
  return 'try: curl -i http://127.0.0.1:3000/api/products/1 (twice), /api/report, then POST /api/products/1\n';
});

// The cache applies to the routes of the context it is registered in: everything under /api.
await app.register(
  async (api) => {
    // Responses that state no freshness of their own are fresh for 10 s.
    await api.register(cache, { store, ttl: '10s', tags: ['api'] });
    api.get('/products/:id', async (request, reply) => {
      // Fresh for 10 s, then served stale for up to a minute while the route runs again in the background.
      reply.header('cache-control', 'public, max-age=10, stale-while-revalidate=60');
      return loadProduct((request.params as { id: string }).id);
    });
    api.get('/report', async (_request, reply) => {
      // A streamed response: the client gets each line as it is written, and the cache stores the whole.
      async function* lines() {
        for (let line = 1; line <= 5; line++) {
          yield `line ${line} at ${new Date().toISOString()}\n`;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      return reply.type('text/plain').send(Readable.from(lines()));
    });
    api.post('/products/:id', async (request, reply) => {
      // A successful POST invalidates the stored responses of its URL; the fragment goes too.
      await loadProduct.delete((request.params as { id: string }).id);
      return reply.code(204).send();
    });
    api.delete('/cache', async () => ({ purged: await api.cache.purge({ tag: 'api' }) }));
  },
  { prefix: '/api' },
);

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
console.log(`listening on http://127.0.0.1:${port}/api/products/1`);

const shutdown = async () => {
  // Closes the response cache's engine too (an onClose hook of the plugin).
  await app.close();
  await fragments.close();
  await store.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
