/**
 * cachette: a framework-agnostic async cache for edge and server runtimes.
 * This entry is runtime-neutral: it imports no `node:` module and no store client.
 *
 * It exports what application code calls and names (at most 30 names: a structure test keeps it
 * so): `createCache`, the two decorators, the errors a caller can catch (a strict cache throws
 * `StoreError`; its subclasses are in `cachette/store`), the option, result and
 * event types. Writing a store is `cachette/store`; the HTTP cache is `cachette/http`; the entry
 * envelope and the codec's internals are not exported at all.
 */
export { createCache } from './cache/create-cache.ts';
export type { BatchFactory, Cache, Factory, FactoryContext, GetOrSetOptions, SetOptions, StandardSchema } from './cache/create-cache.ts';
export type { CacheLogger, CacheOptions } from './cache/options.ts';
export type { WriteFence } from './cache/tags/write-fences.ts';
export { factoryContext } from './cache/wrap.ts';
export type { WrapOptions, WrappedFunction } from './cache/wrap.ts';
export { cached } from './decorators/cached.ts';
export { cachedResponse } from './decorators/cached-response.ts';
export type { CacheEvents, CacheEventMap, CacheEventType, CacheStats } from './cache/events.ts';
export { FactoryFailedError, FactoryTimeoutError, MissingCapabilityError, ValueTooLargeError, WriteFenceError } from './cache/errors.ts';
export { StoreError } from './store/errors.ts';
export type { Serializer } from './codec/serializers.ts';
export type { Compressor } from './codec/compression.ts';
export type { Store } from './store/types.ts';
export type { Duration } from './util/duration.ts';
