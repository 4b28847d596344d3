/**
 * cachette/elysia: the HTTP cache as an Elysia plugin, a thin translation onto cachette/http.
 * Runtime-neutral: imports no Elysia module at run time (Elysia hands over fetch Requests).
 *
 * ```ts
 * import { cache } from 'cachette/elysia';
 * const app = new Elysia().use(cache({ store, ttl: '30s' }));
 * ```
 */
export { cache } from './plugin.ts';
export type { ElysiaApp, ElysiaCacheOptions, ElysiaCachePlugin } from './plugin.ts';
export type { HttpCacheControls } from '../controls.ts';
export type { HttpCacheOptions, PurgeTarget } from '../../http/index.ts';
