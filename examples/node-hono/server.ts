/**
 * The main job (`npm start`): a Hono app on Node whose slow route (~50 ms) is cached with
 * getOrSet. Valkey when VALKEY_URL or REDIS_URL is set, the embedded memory store otherwise.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { storeFromEnv } from 'cachette/node';
import { createCache } from 'cachette';

// Prints which store it chose: Valkey when VALKEY_URL/REDIS_URL is set, memory otherwise.
const store = await storeFromEnv();
// logger: store down / circuit open / recovered are logged once per transition, with the store's
// address and cause, never once per failed call (an outage would otherwise flood the log).
const cache = createCache({ store, prefix: 'demo', ttl: '10s', grace: '1m', logger: console });

/** Stands in for a database query or an upstream API call. */
async function slowReport(id: string): Promise<{ id: string; total: number; computedAt: string }> {
  await new Promise((r) => setTimeout(r, 50));
  return { id, total: Math.round(Math.random() * 1000), computedAt: new Date().toISOString() };
}

const app = new Hono();
app.get('/', (c) => c.text('cachette demo: try /report/42 twice, then /stats\n'));
app.get('/report/:id', async (c) => {
  const started = performance.now();
  const report = await cache.getOrSet(`report:${c.req.param('id')}`, () => slowReport(c.req.param('id')));
  c.header('Server-Timing', `cache;dur=${(performance.now() - started).toFixed(2)}`);
  return c.json(report);
});
app.get('/stats', (c) => c.json(cache.stats()));

const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`[cachette] demo listening on http://127.0.0.1:${info.port}/report/42`);
});

const shutdown = async () => {
  server.close();
  await cache.close(); // closes the store it was given too (closeStore defaults to true)
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
