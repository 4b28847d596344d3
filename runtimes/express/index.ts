/**
 * cachette/express: the HTTP cache as Express middleware (Express 5 and 4; Connect and node:http
 * request listeners too), a thin translation onto cachette/http.
 *
 * ```ts
 * import { cache } from 'cachette/express';
 * app.use('/api', cache({ store, ttl: '30s' }));
 * ```
 */
export { cache } from './middleware.ts';
export type { ExpressCacheMiddleware, ExpressCacheOptions, ExpressNext } from './middleware.ts';
export type { ExpressRequest } from './request.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../src/http/index.ts';
