import { resolveCompression, type CompressionOptions, type CompressionPolicy } from '../codec/compression.ts';
import { resolveSerializer, type Serializer, type SerializerName } from '../codec/serializers.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import type { CircuitBreakerOptions } from './store-guard.ts';

/** Options of {@link createCache}. */
export interface CacheOptions {
  /** Where the bytes live. */
  store: Store;
  /** Prepended to every key, e.g. your app's name. Default "cachette". */
  prefix?: string;
  /** A second key segment, so one store can hold several independent caches. */
  namespace?: string;
  /** Value encoding. Default "cbor". */
  serializer?: SerializerName | Serializer;
  /** Deflate large payloads (default on, above 1 KiB) or `false` to never compress. */
  compression?: CompressionOptions | boolean;
  /** Default time a value stays fresh. Default: no expiry. */
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
   * Fold the store calls of one tick into as few round trips as possible, in issue order:
   * single-key reads into one getMany, writes into one setMany. Default true (false for a
   * `local` store, which has no round trip to save).
   */
  batch?: boolean;
}

/** Options after validation, with defaults applied. */
export interface ResolvedOptions {
  store: Store;
  keyPrefix: string;
  serializer: Serializer;
  compression: CompressionPolicy | undefined;
  ttlMs: number;
  graceMs: number;
  timeoutMs: number;
  strict: boolean;
  breaker: Required<CircuitBreakerOptions>;
  batch: boolean;
}

const STORE_METHODS = ['get', 'getMany', 'set', 'setMany', 'delete', 'incr', 'close'] as const;

/** Validates options, throwing a TypeError or RangeError that names the bad one. */
export function resolveOptions(o: CacheOptions): ResolvedOptions {
  if (!o || typeof o !== 'object') throw new TypeError('createCache needs an options object with a store');
  const store = o.store as Partial<Store> | undefined;
  if (!store || typeof store !== 'object') throw new TypeError('createCache: the "store" option is required (e.g. memoryStore())');
  for (const m of STORE_METHODS) {
    if (typeof store[m] !== 'function') throw new TypeError(`createCache: the store lacks the "${m}" method required by the store contract`);
  }
  for (const [name, value] of [['prefix', o.prefix], ['namespace', o.namespace]] as const) {
    if (value !== undefined && typeof value !== 'string') throw new TypeError(`createCache: "${name}" must be a string`);
  }
  const threshold = o.circuitBreaker?.threshold ?? 5;
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`createCache: circuitBreaker.threshold must be a positive integer, got ${threshold}`);
  const cooldownMs = toMs(o.circuitBreaker?.cooldownMs ?? 2000, 'circuitBreaker.cooldownMs');
  // A local store has no round trip to save and cannot hang, so by default it skips both.
  const local = store.local === true;
  const timeoutMs = toMs(o.timeout ?? (local ? Infinity : 1000), 'timeout');
  if (timeoutMs === 0) throw new RangeError('createCache: timeout must be greater than 0');
  return {
    store: store as Store,
    keyPrefix: [o.prefix ?? 'cachette', o.namespace].filter((s) => s).map((s) => `${s}:`).join(''),
    serializer: resolveSerializer(o.serializer),
    compression: resolveCompression(o.compression),
    ttlMs: o.ttl === undefined ? Infinity : toMs(o.ttl, 'ttl'),
    graceMs: toMs(o.grace ?? 0, 'grace'),
    timeoutMs,
    strict: o.strict ?? false,
    breaker: { threshold, cooldownMs },
    batch: o.batch ?? !local,
  };
}
