/**
 * cachette/express: the HTTP cache as Express middleware (Express 5 and 4; Connect and node:http
 * request listeners too), a thin translation onto cachette/http; and `storeFromEnv`, the store
 * picked from `process.env` (the same function as cachette/node's, which needs no Hono package).
 *
 * ```ts
 * import { cache, storeFromEnv } from 'cachette/express';
 * app.use('/api', cache({ store: await storeFromEnv(), ttl: '30s' }));
 * ```
 */
export { cache } from './middleware.ts';
export type { ExpressCacheMiddleware, ExpressCacheOptions, ExpressNext } from './middleware.ts';
export type { ExpressRequest } from './request.ts';
export { storeFromEnv } from '../../node/index.ts';
export type { StoreSelectionOptions } from '../../shared/env-store.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../../src/http/index.ts';
