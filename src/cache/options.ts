import { resolveCompression, type CompressionOptions, type CompressionPolicy } from '../codec/compression.ts';
import { resolveSerializer, type Serializer, type SerializerName } from '../codec/serializers.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { checkKnownOptions } from '../util/known-options.ts';
import { systemClock, type Clock } from './clock.ts';

/** Circuit breaker settings; reads and writes each have a breaker with these settings. */
export interface CircuitBreakerOptions {
  /** Consecutive store failures that mark reads (or writes) as down. Default 5. */
  threshold?: number;
  /** How long a down half is skipped before one probe call is let through, in ms. Default 2000. */
  cooldownMs?: number;
}

/** Where the cache writes the few lines it has to say (a store going down, coming back). `console` fits. */
export interface CacheLogger {
  /** Something that still works, said once: a store recovered. */
  info(message: string): void;
  /** Something that degrades the cache, said once: a store went down. */
  warn(message: string): void;
}

/** Options of {@link createCache}. */
export interface CacheOptions {
  /** Where the bytes live. */
  store: Store;
  /**
   * Close the store when the last cache over it closes. Default true: `cache.close()` releases
   * the connection a store opened, so a script exits. `false` for a store you close yourself.
   */
  closeStore?: boolean;
  /** Prepended to every key, e.g. your app's name. Default "cachette". */
  prefix?: string;
  /** A second key segment, so one store can hold several independent caches. */
  namespace?: string;
  /**
   * Value encoding. Default "auto": JSON for plain JSON values (the fastest to write and read),
   * CBOR for everything JSON would change (Dates, Maps, Sets, BigInt, typed arrays, undefined,
   * -0, NaN). The envelope records which, so a reader never guesses.
   */
  serializer?: SerializerName | Serializer;
  /**
   * Compress payloads from a size on. Default: from the size at which the store says it pays
   * (32 KiB for a server in the same data centre, 1 KiB over HTTP, never for process memory).
   * `true` compresses from 1 KiB; `false` never; or set `threshold` and the compressor.
   */
  compression?: CompressionOptions | boolean;
  /** Default time a value stays fresh. Default: no expiry (the store's own eviction decides). */
  ttl?: Duration;
  /** Default time a value may still be served stale while one refresh runs. Default 0. */
  grace?: Duration;
  /** Per store call timeout; a late answer is a miss. Default 1000 ms (none for a `local` store); `Infinity` disables. */
  timeout?: Duration;
  /** Throw store failures at the caller instead of treating them as misses. Default false. */
  strict?: boolean;
  /** Circuit breaker settings. */
  circuitBreaker?: CircuitBreakerOptions;
  /**
   * Fold the store calls of one tick into one round trip, in issue order. Default true (false
   * for a `local` store, which has no round trip to save).
   */
  batch?: boolean;
  /**
   * How long a `getOrSet` factory may run before its waiters get a FactoryTimeoutError (a stale
   * value, when there is one, keeps being served instead). Default: no limit.
   */
  factoryTimeout?: Duration;
  /**
   * The largest value, in bytes after serialization and before compression, that the cache
   * writes or reads back. Larger values are served but not stored; a stored entry that would
   * inflate past it is a corrupt miss and is never inflated. Default 16 MiB.
   */
  maxValueBytes?: number;
  /** Where the cache reads the time (freshness, grace, breaker). Default the system clock. */
  clock?: Clock;
  /** Where store health changes are written, once per change. Default: nowhere (listen to `health` events). */
  logger?: CacheLogger;
}

/** Options after validation, with defaults applied. */
export interface ResolvedOptions {
  store: Store;
  closeStore: boolean;
  keyPrefix: string;
  serializer: Serializer;
  compression: CompressionPolicy | undefined;
  ttlMs: number;
  graceMs: number;
  timeoutMs: number;
  strict: boolean;
  breaker: Required<CircuitBreakerOptions>;
  batch: boolean;
  factoryTimeoutMs: number;
  maxValueBytes: number;
  clock: Clock;
  logger: CacheLogger | undefined;
}

const KNOWN: ReadonlyArray<keyof CacheOptions> = [
  'store', 'closeStore', 'prefix', 'namespace', 'serializer', 'compression', 'ttl', 'grace', 'timeout',
  'strict', 'circuitBreaker', 'batch', 'factoryTimeout', 'maxValueBytes', 'clock', 'logger',
];
const STORE_METHODS = ['get', 'getMany', 'set', 'setMany', 'delete', 'incr', 'close'] as const;
const DEFAULT_MAX_VALUE_BYTES = 16 * 1024 * 1024;

/** Validates options, throwing a TypeError or RangeError that names the bad one. */
export function resolveOptions(o: CacheOptions): ResolvedOptions {
  if (!o || typeof o !== 'object') throw new TypeError('createCache needs an options object with a store');
  checkKnownOptions(o, KNOWN, 'createCache');
  const store = o.store as Partial<Store> | undefined;
  if (!store || typeof store !== 'object') throw new TypeError('createCache: the "store" option is required (e.g. memoryStore())');
  for (const m of STORE_METHODS) {
    if (typeof store[m] !== 'function') throw new TypeError(`createCache: the store lacks the "${m}" method required by the store contract`);
  }
  for (const [name, value] of [['prefix', o.prefix], ['namespace', o.namespace]] as const) {
    if (value !== undefined && typeof value !== 'string') throw new TypeError(`createCache: "${name}" must be a string`);
  }
  if (o.circuitBreaker !== undefined) checkKnownOptions(o.circuitBreaker, ['threshold', 'cooldownMs'], 'createCache: circuitBreaker');
  const threshold = o.circuitBreaker?.threshold ?? 5;
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`createCache: circuitBreaker.threshold must be a positive integer, got ${threshold}`);
  const cooldownMs = toMs(o.circuitBreaker?.cooldownMs ?? 2000, 'circuitBreaker.cooldownMs');
  // A local store has no round trip to save and cannot hang, so by default it skips both.
  const local = store.local === true;
  const timeoutMs = toMs(o.timeout ?? (local ? Infinity : 1000), 'timeout');
  if (timeoutMs === 0) throw new RangeError('createCache: timeout must be greater than 0');
  const ttlMs = o.ttl === undefined ? Infinity : toMs(o.ttl, 'ttl');
  if (ttlMs === 0) throw new RangeError('createCache: ttl must be greater than 0 (leave it out for no expiry)');
  const maxValueBytes = o.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  if (!Number.isInteger(maxValueBytes) || maxValueBytes < 1) throw new RangeError(`createCache: maxValueBytes must be a positive integer, got ${maxValueBytes}`);
  const clock = o.clock ?? systemClock;
  if (typeof clock.now !== 'function') throw new TypeError('createCache: "clock" must have a now() method');
  if (o.logger !== undefined && (typeof o.logger?.warn !== 'function' || typeof o.logger.info !== 'function')) {
    throw new TypeError('createCache: "logger" must have info() and warn() methods (console does)');
  }
  return {
    store: store as Store,
    closeStore: o.closeStore ?? true,
    keyPrefix: [o.prefix ?? 'cachette', o.namespace].filter((s) => s).map((s) => `${s}:`).join(''),
    serializer: resolveSerializer(o.serializer),
    compression: resolveCompression(o.compression, store.compressionThreshold),
    ttlMs,
    graceMs: toMs(o.grace ?? 0, 'grace'),
    timeoutMs,
    strict: o.strict ?? false,
    breaker: { threshold, cooldownMs },
    batch: o.batch ?? !local,
    factoryTimeoutMs: o.factoryTimeout === undefined ? Infinity : toMs(o.factoryTimeout, 'factoryTimeout'),
    maxValueBytes,
    clock,
    logger: o.logger,
  };
}
