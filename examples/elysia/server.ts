/**
 * An Elysia app on Bun with cachette: every route behind the `cachette/elysia` plugin, a POST
 * invalidating what is stored for its URL. Imports only the package's public entry points. Run:
 * `node_modules/.bin/bun examples/elysia/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to share
 * the cache through Valkey; memory otherwise), then `curl -i http://127.0.0.1:3000/api/products/1` twice.
 */
import { Elysia } from 'elysia';
import { cache } from 'cachette/elysia';
import { storeFromEnv } from 'cachette/bun';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
// Responses that state no freshness of their own are fresh for 10 s.
const responses = cache({ store, ttl: '10s' });

const app = new Elysia()
  .use(responses)
  .get('/api/products/:id', ({ params, set }) => {
    set.headers['cache-control'] = 'public, max-age=10, stale-while-revalidate=60';
    return { id: params.id, name: `Product ${params.id}`, at: new Date().toISOString() };
  })
  // A successful POST drops the stored responses of its own URL.
  .post('/api/products/:id', ({ set }) => {
    set.status = 204;
  })
  .listen({ port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${app.server?.port}/api/products/1`);

// Ctrl-C or SIGTERM: stop listening, then close the cache and the store.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(
    signal,
    () =>
      void app
        .stop(true)
        .then(() => responses.close())
        .then(() => store.close()),
  );
}
