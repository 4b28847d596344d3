/**
 * cachette/h3: the HTTP cache as h3 (v2) middleware, a thin translation onto cachette/http.
 * Runtime-neutral: h3 v2 is fetch-native, and so is the middleware.
 *
 * ```ts
 * import { cache } from 'cachette/h3';
 * app.use('/api/**', cache({ store, ttl: '30s' }));
 * ```
 */
export { cache } from './middleware.ts';
export type { H3CacheMiddleware, H3CacheOptions } from './middleware.ts';
export type { HttpCacheControls } from '../controls.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../http/index.ts';
