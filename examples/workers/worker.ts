// A Worker whose Hono app is served through the shared HTTP cache. Run: `npx wrangler dev`
// (see README.md). The store is picked from the bindings: Upstash when UPSTASH_REDIS_REST_URL
// and _TOKEN are set, else the CACHETTE_KV namespace from wrangler.toml.
import { Hono } from 'hono';
import { withCache } from 'cachette/workers';

const app = new Hono();

// Fresh for 10 s, then served stale for up to 60 s while one background refresh runs.
app.get('/', (c) => c.json({ renderedAt: new Date().toISOString() }, 200, { 'cache-control': 'public, s-maxage=10, stale-while-revalidate=60' }));
app.get('/private', (c) => c.text('never stored by a shared cache', 200, { 'cache-control': 'private' }));

export default withCache(app);
