/**
 * cachette: a framework-agnostic async cache for edge and server runtimes.
 * This entry is runtime-neutral: it imports no `node:` module and no store client.
 */
export { createCache } from './cache/create-cache.ts';
export type { Cache, Factory, FactoryContext, SetManyEntry, SetOptions } from './cache/create-cache.ts';
export type { CacheOptions } from './cache/options.ts';
export type { WrapOptions, WrappedFunction } from './cache/wrap.ts';
export { cached } from './decorators/cached.ts';
export type { AsyncMethod, CachedMethodDecorator, CacheSource } from './decorators/cached.ts';
export { cachedResponse } from './decorators/cached-response.ts';
export type { CachedResponseDecorator, ResponseMethod } from './decorators/cached-response.ts';
export { CacheEvents } from './cache/events.ts';
export type { CacheEventMap, CacheEventType, CacheStats } from './cache/events.ts';
export { CircuitOpenError, StoreTimeoutError } from './cache/store-guard.ts';
export type { CircuitBreakerOptions } from './cache/store-guard.ts';
export { CorruptEntryError, decodeEnvelope, encodeEnvelope, MAGIC, VERSION } from './codec/envelope.ts';
export type { Envelope, TagGeneration } from './codec/envelope.ts';
export { cborSerializer, jsonSerializer, rawBytesSerializer, rawStringSerializer } from './codec/serializers.ts';
export type { Serializer, SerializerName } from './codec/serializers.ts';
export { CompressionId, fflateDeflate } from './codec/compression.ts';
export type { CompressionOptions, Compressor, DeflateLevel } from './codec/compression.ts';
export type { Store, StoreEntry } from './store/types.ts';
export type { Duration } from './util/duration.ts';
