/**
 * An h3 v2 app with cachette: whole responses under /api through the `cachette/h3` middleware, a
 * POST invalidating what is stored for its URL. Imports only the package's public entry points.
 * Run: `npx tsx examples/h3/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to share the cache
 * through Valkey; memory otherwise), then `curl -i http://127.0.0.1:3000/api/products/1` twice.
 */
import { H3, serve } from 'h3';
import { cache } from 'cachette/h3';
import { storeFromEnv } from 'cachette/node';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
// Responses that state no freshness of their own are fresh for 10 s.
const responses = cache({ store, ttl: '10s' });

const app = new H3();
app.use('/api/**', responses);
app.get('/api/products/:id', (event) => {
  const id = event.context.params?.id ?? '';
  event.res.headers.set('cache-control', 'public, max-age=10, stale-while-revalidate=60');
  return { id, name: `Product ${id}`, at: new Date().toISOString() };
});
// A successful POST drops the stored responses of its own URL.
app.post('/api/products/:id', () => new Response(null, { status: 204 }));

const server = serve(app, { port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1', silent: true });
await server.ready();
console.log(`listening on ${new URL('/api/products/1', server.url).href}`);

const shutdown = async () => {
  await server.close(true);
  await responses.close();
  await store.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
