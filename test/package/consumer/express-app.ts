// cachette/express in an Express 5 app typed with @types/express.
import express from 'express';
import { memoryStore } from 'cachette/adapters/memory';
import { cache } from 'cachette/express';

const app = express();
const middleware = cache({ store: memoryStore(), ttl: '30s' });
app.use('/api', middleware);
app.get('/api/products', (_req, res) => {
  res.json([{ id: 1 }]);
});
export const purged: Promise<number> = middleware.purge({ tag: 'products' });
export default app;
