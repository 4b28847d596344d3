/**
 * cachette/fastify: the HTTP cache as a Fastify plugin (Fastify 5 and 4), a thin translation
 * onto cachette/http; and `storeFromEnv`, the store picked from `process.env` (the same function
 * as cachette/node's).
 *
 * ```ts
 * import cache, { storeFromEnv } from 'cachette/fastify';
 * await app.register(cache, { store: await storeFromEnv(), ttl: '30s' });
 * ```
 */
import { cache } from './plugin.ts';

export default cache;
export { cache };
export type { FastifyCache, FastifyCacheOptions } from './plugin.ts';
export { storeFromEnv } from '../../node/index.ts';
export type { StoreSelectionOptions } from '../../shared/env-store.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../../src/http/index.ts';
