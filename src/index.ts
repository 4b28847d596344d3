/**
 * cachette: a framework-agnostic async cache for edge and server runtimes.
 * This entry is runtime-neutral: it imports no `node:` module and no store client.
 */
export { createCache } from './cache/create-cache.ts';
export type {
  BatchFactory,
  BatchFactoryContext,
  BatchResult,
  Cache,
  CacheHealth,
  CloseOptions,
  Factory,
  FactoryContext,
  GetOrSetOptions,
  SetManyEntry,
  SetOptions,
  StandardSchema,
  WaitUntil,
} from './cache/create-cache.ts';
export type { CacheLogger, CacheOptions, CircuitBreakerOptions, L1Options } from './cache/options.ts';
export type { WriteFence } from './cache/tags/write-fences.ts';
export type { Clock } from './cache/clock.ts';
export { factoryContext } from './cache/wrap.ts';
export type { WrapOptions, WrappedFunction } from './cache/wrap.ts';
export { cached } from './decorators/cached.ts';
export type { AsyncMethod, CachedMethodDecorator, CacheSource } from './decorators/cached.ts';
export { cachedResponse } from './decorators/cached-response.ts';
export type { CachedResponseDecorator, ResponseMethod } from './decorators/cached-response.ts';
export { CacheEvents } from './cache/events.ts';
export type { CacheEventListener, CacheEventMap, CacheEventType, CacheStats, HealthEventDetail } from './cache/events.ts';
export { FactoryFailedError, FactoryTimeoutError, MissingCapabilityError, ValueTooLargeError, WriteFenceError } from './cache/errors.ts';
export { CircuitOpenError, StoreBusyError, StoreError, StoreRefusedError, StoreTimeoutError, StoreUnavailableError } from './store/errors.ts';
export { CorruptEntryError, decodeEnvelope, encodeEnvelope, HEADER_BYTES, MAGIC, VERSION } from './codec/envelope.ts';
export type { Envelope, EnvelopeInput, TagGeneration } from './codec/envelope.ts';
export { autoSerializer, cborSerializer, jsonSerializer, rawBytesSerializer, rawStringSerializer } from './codec/serializers.ts';
export type { Serializer, SerializerName } from './codec/serializers.ts';
export { CompressionId, fflateDeflate, installPlatformDeflate } from './codec/compression.ts';
export type { CompressionOptions, Compressor, DeflateFactory, DeflateLevel } from './codec/compression.ts';
export type { GenerationRead, GenerationReadResult, GenerationWrite, InvalidationListener, Store, StoreEntry, StoreOp, StoreOpResult, TagKeys, TagState, Tracking } from './store/types.ts';
export type { Duration } from './util/duration.ts';
