/**
 * cachette/hono: the HTTP cache as Hono middleware, a thin translation onto cachette/http.
 * Runtime-neutral: imports only Hono's types.
 */
export { cache } from './middleware.ts';
export type { HonoCacheMiddleware, HonoCacheOptions, RevalidationApp } from './middleware.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../http/index.ts';
