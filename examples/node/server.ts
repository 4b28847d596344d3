// A Hono app on node:http whose routes cache themselves with cachette/hono. Run:
// `npx tsx examples/node/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to share the cache
// through Valkey; memory otherwise). One cache: the middleware's. serve() only serves.
import { Hono } from 'hono';
import { cache } from 'cachette/hono';
import { serve, storeFromEnv } from 'cachette/node';

const store = await storeFromEnv();
const app = new Hono();
// `app` lets stale-while-revalidate refresh in the background through the app itself.
app.use('/api/*', cache({ store, ttl: '10s', app }));
app.get('/api/time', async (c) => {
  // Pretend this is expensive: the cache answers the next requests for 10 s without calling it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return c.json({ runtime: 'node', renderedAt: new Date().toISOString() });
});

const server = await serve(app.fetch, { port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${server.url}/api/time`);

const shutdown = async () => {
  await server.close();
  await store.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
