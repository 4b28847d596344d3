/**
 * A Koa 3 app with cachette: whole responses through the `cachette/koa` middleware, a POST
 * invalidating what is stored for its URL. Imports only the package's public entry points. Run:
 * `npx tsx examples/koa/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to share the cache through
 * Valkey; memory otherwise), then `curl -i http://127.0.0.1:3000/api/products/1` twice.
 */
import Koa from 'koa';
import { cache, storeFromEnv } from 'cachette/koa';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
// Responses that state no freshness of their own are fresh for 10 s.
const responses = cache({ store, ttl: '10s' });

const app = new Koa();
app.use(responses);
app.use(async (ctx) => {
  const product = /^\/api\/products\/(\w+)$/.exec(ctx.path);
  if (!product) return; // Koa's 404
  // A successful POST drops the stored responses of its own URL.
  if (ctx.method === 'POST') {
    ctx.status = 204;
    return;
  }
  ctx.set('cache-control', 'public, max-age=10, stale-while-revalidate=60');
  ctx.body = { id: product[1], name: `Product ${product[1]}`, at: new Date().toISOString() };
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}/api/products/1`);
});

const shutdown = async () => {
  server.close();
  server.closeIdleConnections();
  await responses.close();
  await store.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
