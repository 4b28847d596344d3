// cachette/fastify in a Fastify 5 app: the plugin's options are checked, and `app.cache` is typed.
import Fastify from 'fastify';
import { memoryStore } from 'cachette/adapters/memory';
import cache, { type FastifyCache, type FastifyCacheOptions } from 'cachette/fastify';
import type { Expect, Same } from './type-checks.js';

const app = Fastify();
await app.register(cache, { store: memoryStore(), ttl: '30s', tags: ['products'] });
app.get('/api/products', async () => [{ id: 1 }]);
export const purged: Promise<number> = app.cache.purge({ tag: 'products' });
export type DecoratorIsTyped = Expect<Same<typeof app.cache, FastifyCache>>;
export const bad: FastifyCacheOptions = {
  store: memoryStore(),
  // @ts-expect-error a ttl is a duration, not a boolean
  ttl: true,
};
export default app;
