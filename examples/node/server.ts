// A Hono app on node:http behind the HTTP cache. Run: `npx tsx examples/node/server.ts`
// (VALKEY_URL=redis://127.0.0.1:6379 to share the cache through Valkey; memory otherwise).
import { Hono } from 'hono';
import { serve } from '../../runtimes/node/index.ts';

const app = new Hono();
app.get('/', async (c) => {
  // Pretend this is expensive: the cache answers the next requests for 10 s without calling it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return c.json({ runtime: 'node', renderedAt: new Date().toISOString() }, 200, { 'cache-control': 'public, max-age=10' });
});

const { url } = await serve(app.fetch, { port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
