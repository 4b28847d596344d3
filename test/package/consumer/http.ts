// cachette/http and cachette/hono, as the README shows them.
import { Hono } from 'hono';
import { memoryStore } from 'cachette/adapters/memory';
import { cache } from 'cachette/hono';
import { withCache, type CachedHandler } from 'cachette/http';

const store = memoryStore();
export const handler: CachedHandler = withCache(async (request) => fetch(request), { store, ttl: '30s' });

const app = new Hono();
app.use('/api/*', cache({ store, ttl: '30s', app }));
app.get('/api/time', (c) => c.json({ now: Date.now() }));
export default app;
