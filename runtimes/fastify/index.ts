/**
 * cachette/fastify: the HTTP cache as a Fastify plugin (Fastify 5 and 4), a thin translation
 * onto cachette/http.
 *
 * ```ts
 * import cache from 'cachette/fastify';
 * await app.register(cache, { store, ttl: '30s' });
 * ```
 */
import { cache } from './plugin.ts';

export default cache;
export { cache };
export type { FastifyCache, FastifyCacheOptions } from './plugin.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../src/http/index.ts';
