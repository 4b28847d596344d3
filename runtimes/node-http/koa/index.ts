/**
 * cachette/koa: the HTTP cache as Koa middleware (Koa 3 and 2), a thin translation onto
 * cachette/http over the node:http exchange the Express and Fastify bindings share; and
 * `storeFromEnv`, the store picked from `process.env` (the same function as cachette/node's).
 *
 * ```ts
 * import { cache, storeFromEnv } from 'cachette/koa';
 * app.use(cache({ store: await storeFromEnv(), ttl: '30s' }));
 * ```
 */
export { cache } from './middleware.ts';
export type { KoaCacheMiddleware, KoaCacheOptions } from './middleware.ts';
export type { HttpCacheControls } from '../../../src/bindings/controls.ts';
export { storeFromEnv } from '../../node/index.ts';
export type { StoreSelectionOptions } from '../../shared/env-store.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../../src/http/index.ts';
