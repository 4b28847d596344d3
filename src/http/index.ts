/**
 * cachette/http: an RFC 9111 shared HTTP cache around any fetch-style handler, the policy that
 * every framework binding translates onto. Runtime-neutral: no `node:` module, no store client.
 */
export { createHttpCache, httpCache } from './http-cache.ts';
export type { CachedHandler, FetchHandler, HandleOptions, HttpCache, OriginFetch, PurgeTarget, WaitUntilContext } from './http-cache.ts';
export type { HttpCacheOptions } from './options.ts';
export type { KeyOptions } from './key.ts';
export type { CacheOutcome, ForwardReason } from './cache-status.ts';
export { endToEndHeaders, isHopByHop } from './headers.ts';
export { parseDirectives } from './cache-control.ts';
export type { Directives } from './cache-control.ts';
export { parseHttpDate } from './http-date.ts';
