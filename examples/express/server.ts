/**
 * An Express 5 app with cachette: whole responses under /api through the `cache()` middleware,
 * and a slow lookup cached by its arguments with `cache.wrap`. Imports only the package's public
 * entry points. Run: `npx tsx examples/express/server.ts` (VALKEY_URL=redis://127.0.0.1:6379 to
 * share both caches through Valkey; memory otherwise), then `curl -i` a URL below twice.
 */
import express from 'express';
import { createCache } from 'cachette';
import { cache } from 'cachette/express';
import { storeFromEnv } from 'cachette/node';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
const fragments = createCache({ store, prefix: 'example', ttl: '1m' });
// Responses that state no freshness of their own are fresh for 10 s.
const responses = cache({ store, ttl: '10s' });

/** Stands in for a database query: slow, and called once per id while its entry is fresh. */
const loadProduct = fragments.wrap(async function loadProduct(id: string) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { id, name: `Product ${id}`, loadedAt: new Date().toISOString() };
});

const app = express();
app.get('/', (_req, res) => {
  res.type('text').send('try: curl -i http://127.0.0.1:3000/api/products/1 (twice), /api/report, then POST /api/products/1\n');
});
app.use('/api', responses);
app.get('/api/products/:id', async (req, res) => {
  // Fresh for 10 s, then served stale for up to a minute while the route runs again in the background.
  res.set('cache-control', 'public, max-age=10, stale-while-revalidate=60');
  res.json(await loadProduct(req.params.id));
});
app.get('/api/report', async (_req, res) => {
  // A streamed response: the client gets each line as it is written, and the cache stores the whole.
  res.type('text');
  for (let line = 1; line <= 5; line++) {
    res.write(`line ${line} at ${new Date().toISOString()}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  res.end();
});
app.post('/api/products/:id', async (req, res) => {
  // A successful POST invalidates the stored responses of its URL; the fragment goes too.
  await loadProduct.delete(req.params.id);
  res.status(204).end();
});

const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/api/products/1`));

const shutdown = async () => {
  server.close();
  server.closeIdleConnections();
  await responses.close();
  await fragments.close();
  await store.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
