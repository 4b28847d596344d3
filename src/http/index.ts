/**
 * cachette/http: an RFC 9111 shared HTTP cache around any fetch-style handler, the policy that
 * every framework binding translates onto. Runtime-neutral: no `node:` module, no store client.
 * `withCache(handler, options)` puts a handler behind the cache; `createHttpCache(options)` is
 * the policy object itself, for a binding that calls it per request (`handle`, `handleBytes`).
 * Only what users call is exported; the parsers and header helpers stay internal (the bindings
 * and the proxy import them by path).
 */
export { createHttpCache, httpCache, withCache } from './exchange/http-cache.ts';
export type { BytesAnswer, CachedHandler, FetchHandler, HandleOptions, HttpCache, OriginFetch, PurgeTarget, WaitUntilContext } from './exchange/http-cache.ts';
export type { HttpCacheOptions } from './exchange/options.ts';
export type { KeyOptions } from './rules/key.ts';
export type { CacheOutcome, ForwardReason } from './rules/cache-status.ts';
