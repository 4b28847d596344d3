import { resolveCompression, type CompressionOptions, type CompressionPolicy } from '../codec/compression.ts';
import { resolveSerializer, type Serializer, type SerializerName } from '../codec/serializers.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { checkKnownOptions, storeOptionMistake } from '../util/known-options.ts';
import { resolveCdn, type CdnRetryOptions } from '../cdn/forwarding.ts';
import type { CdnPurger } from '../cdn/types.ts';
import { systemClock, type Clock } from './clock.ts';
import { reservedSegment } from './key-space.ts';
import type { WaitUntil } from './background.ts';
import { MissingCapabilityError } from './errors.ts';
import { checkNegativeTtl, checkRefreshAhead, checkXfetch } from './fill/fill-request.ts';
import { checkTtlJitter, type Jitter } from './roles/jitter.ts';
import { resolveEncryption, type EncryptionOptions, type Keyring } from './encryption/keyring.ts';
import { resolveLocationCache, type LocationCacheOptions, type ResolvedLocationCache } from './tiers/location-options.ts';

/** Options of the in-process L1 tier (`l1`). */
export interface L1Options {
  /** Most entries held in memory. Default 10,000. */
  maxEntries?: number;
  /** Most bytes held in memory, counted as each entry's stored size plus its key. Default 64 MiB. */
  maxBytes?: number;
  /**
   * `strict` (default): a copy is served only after one small round trip confirms it is still
   * the stored version and its tags are current (no value transfer, no decode): never stale.
   * `tracking`: copies are served with no round trip and evicted by the server's invalidation
   * messages (Valkey/Redis CLIENT TRACKING); stale for at most one message's delivery delay,
   * and bypassed whenever the invalidation channel is not known to be live.
   * `coherent`: copies are served with no round trip and are never stale with respect to the
   * writes of any cache sharing the store: a write returns once every other process that may
   * hold what it changed dropped it, or its lease ran out (docs/l1.md). Needs a store with an
   * invalidation bus (Valkey/Redis, the cluster store, bun-redis, SQLite, PostgreSQL); writes get slower.
   * `bounded`: not coherent, on any store: a copy confirmed current by a read issued less than
   * `maxStaleness` ago is served with no round trip; older ones are confirmed as in `strict`.
   * Another process's write is seen at most `maxStaleness` after it returned (this process's
   * own writes at once): for stores without a bus (upstash, cloudflare-kv).
   */
  consistency?: 'strict' | 'tracking' | 'coherent' | 'bounded';
  /**
   * With `consistency: 'coherent'`, how a copy is confirmed. `lease` (default): while this
   * process holds its lease on the bus, no round trip at all; writes wait for acknowledgements.
   * `barrier`: one round trip per tick of reads (a barrier behind the bus's messages), and
   * writes wait for nothing more than their own publication.
   */
  confirm?: 'lease' | 'barrier';
  /**
   * With `consistency: 'bounded'`, how long a copy may be served from memory after the read
   * that confirmed it was issued: the most a read can lag behind another process's write.
   * Default 1 second.
   */
  maxStaleness?: Duration;
}

/** {@link L1Options} checked, with defaults applied. */
export interface ResolvedL1 {
  maxEntries: number;
  maxBytes: number;
  consistency: 'strict' | 'tracking' | 'coherent' | 'bounded';
  confirm: 'lease' | 'barrier';
  /** With `bounded`: how long a confirmed copy is served from memory, ms. */
  maxStalenessMs: number;
}

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
  /** Refresh-ahead for every `getOrSet`: a fraction of the ttl (see `refreshAhead` in the getOrSet options). Default: none. */
  refreshAhead?: number;
  /**
   * Takes up to this much off each write's ttl at random, so keys written together expire
   * apart: a fraction of the ttl strictly between 0 and 1 (`0.1`), or a duration string
   * (`'30s'`; never more than the ttl). A number is never milliseconds. Default: none.
   */
  ttlJitter?: number | Exclude<Duration, number>;
  /** Probabilistic early refresh for every `getOrSet`: β, or `true` for 1 (see `xfetch` in the getOrSet options). Default: none. */
  xfetch?: boolean | number;
  /** The ttl of factory results `negative` matches (a cached "nothing"; see `negativeTtl` in the getOrSet options). Default: none (the call's ttl). */
  negativeTtl?: Duration;
  /**
   * Which factory results are "nothing" for `negativeTtl` and `inspect(key).negative`.
   * Default `(value) => value === undefined || value === null`.
   */
  negative?: (value: unknown) => boolean;
  /**
   * How long past `ttl` the last value is kept to be served when a `getOrSet` factory fails;
   * longer than `grace` (see `staleIfError` in the getOrSet options). Default: none.
   */
  staleIfError?: Duration;
  /**
   * After a factory failed for a key, how often at most it is retried while a value can still
   * be served (stale, stale-if-error, or fresh with refresh-ahead). Default 5 s (0: tried on
   * every call).
   */
  graceBackoff?: Duration;
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
   * value, when there is one, keeps being served instead) and its `ctx.signal` is aborted.
   * Default 10 s (docs/cache.md, "Deadlines and background work", says why); `false` for no limit.
   */
  factoryTimeout?: Duration | false;
  /**
   * Receives every background promise the cache starts (grace refreshes, refresh-ahead, the
   * store writes after fills), e.g. Vercel's `waitUntil` from `@vercel/functions`; a call's own
   * `waitUntil` wins. Default: the one of the request a cachette binding is handling (the
   * Workers binding, the Hono middleware on a platform with `executionCtx`).
   */
  waitUntil?: WaitUntil;
  /**
   * The largest value, in bytes after serialization and before compression, that the cache
   * writes or reads back. Larger values are served but not stored; a stored entry that would
   * inflate past it is a corrupt miss and is never inflated. Default 16 MiB.
   */
  maxValueBytes?: number;
  /** Where the cache reads the time (freshness, grace, breaker). Default the system clock. */
  clock?: Clock;
  /**
   * Where store health changes are written, once per change: the store failing (its first
   * failure: "store valkey at 127.0.0.1:6379 is unreachable (…)"), its breaker opening, and its
   * recovery. Default `console`, so a store that cannot be reached is never silent; `false`
   * writes nothing (the `health` events still fire).
   */
  logger?: CacheLogger | false;
  /**
   * How long a cold `getOrSet` waits for another process's fill (its fill lease) before
   * computing the value itself. Also the fill lease's expiry: a process that dies while filling
   * blocks others no longer. Default 5 s.
   */
  lockTimeout?: Duration;
  /**
   * How long a `beginWrite` holds its write lease when nobody commits or aborts it (a crashed
   * writer): fills of its tags are not stored for at most this long. Default 10 s.
   */
  writeLeaseTtl?: Duration;
  /** An in-process memory tier in front of the store (see {@link L1Options}). Default: none. */
  l1?: L1Options;
  /**
   * A tier of copies in the location's Cache API (Cloudflare Workers, Deno) in front of the
   * store, shared by every isolate there (see {@link LocationCacheOptions}, docs/location-cache.md).
   * Not with `l1`. Default: none.
   */
  locationCache?: LocationCacheOptions;
  /**
   * Purge forwarders from cachette/cdn (docs/cdn.md): each committed `beginWrite`,
   * `invalidateTags` and HTTP purge is sent to every one of them. Default: none.
   */
  cdn?: readonly CdnPurger[];
  /** How long an invalidating call waits for its CDN purges at most. Default 0: it does not wait (they are sent in the background). */
  cdnWait?: Duration;
  /** How CDN purge requests are retried (see {@link CdnRetryOptions}). */
  cdnRetry?: CdnRetryOptions;
  /**
   * Encrypt values at rest with AES-256-GCM (docs/cache.md#encryption-at-rest): every stored
   * payload is sealed under `keys[current]`, with its key id, and bound to its store key; values
   * sealed under any listed key are read, and one that cannot be opened is a corrupt miss.
   * Default: none.
   */
  encryption?: EncryptionOptions;
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
  staleIfErrorMs: number | undefined;
  graceBackoffMs: number;
  refreshAhead: number | undefined;
  ttlJitter: Jitter | undefined;
  /** `xfetch`'s β (undefined: off). */
  xfetch: number | undefined;
  negativeTtlMs: number | undefined;
  negative: (value: unknown) => boolean;
  timeoutMs: number;
  strict: boolean;
  breaker: Required<CircuitBreakerOptions>;
  batch: boolean;
  factoryTimeoutMs: number;
  waitUntil: WaitUntil | undefined;
  maxValueBytes: number;
  clock: Clock;
  logger: CacheLogger | undefined;
  lockTimeoutMs: number;
  writeLeaseTtlMs: number;
  l1: ResolvedL1 | undefined;
  locationCache: ResolvedLocationCache | undefined;
  cdn: ReturnType<typeof resolveCdn>;
  /** The checked `encryption` keys (undefined: values are stored as they are). */
  encryption: Keyring | undefined;
}

const KNOWN: ReadonlyArray<keyof CacheOptions> = [
  'store',
  'closeStore',
  'prefix',
  'namespace',
  'serializer',
  'compression',
  'ttl',
  'grace',
  'refreshAhead',
  'ttlJitter',
  'xfetch',
  'negativeTtl',
  'negative',
  'staleIfError',
  'graceBackoff',
  'timeout',
  'strict',
  'circuitBreaker',
  'batch',
  'factoryTimeout',
  'waitUntil',
  'maxValueBytes',
  'clock',
  'logger',
  'lockTimeout',
  'writeLeaseTtl',
  'l1',
  'locationCache',
  'cdn',
  'cdnWait',
  'cdnRetry',
  'encryption',
];
const STORE_METHODS = ['get', 'getMany', 'set', 'setMany', 'delete', 'incr', 'close'] as const;
const DEFAULT_MAX_VALUE_BYTES = 16 * 1024 * 1024;
/**
 * The default `factoryTimeout`. Finite, because one wedged source would otherwise hold a key's
 * waiters (every caller coalesced onto that fill) for the life of the process. Ten seconds is
 * longer than a healthy source call, twice the default `lockTimeout` (a fill that outlives its
 * lease still gets to finish), and well inside the 30 s after which gateways, load balancers
 * and Workers' `waitUntil` give up, so that a caller still has time to answer (a stale value,
 * an error page) before the client's proxy does.
 */
export const DEFAULT_FACTORY_TIMEOUT_MS = 10_000;

/**
 * The default `graceBackoff`. Not 0: refresh-ahead, grace and stale-if-error each start a
 * background refresh on a call after the previous one failed, so a source that is down would
 * be called back to back on every hit of every hot key (hundreds of calls a second per key and
 * process) while stale values hide the outage. Five seconds turns that into one try per key and
 * process every 5 s, and a source that recovers is seen within 5 s.
 */
export const DEFAULT_GRACE_BACKOFF_MS = 5000;

/** Validates options, throwing a TypeError or RangeError that names the bad one. */
export function resolveOptions(options: CacheOptions): ResolvedOptions {
  if (!options || typeof options !== 'object') throw new TypeError('createCache needs an options object with a store');
  checkKnownOptions(options, KNOWN, 'createCache');
  const store = options.store as Partial<Store> | undefined;
  if (store === undefined) throw new TypeError('createCache: the "store" option is required (e.g. memoryStore())');
  const mistake = storeOptionMistake(store, 'createCache');
  if (mistake) throw mistake;
  for (const method of STORE_METHODS) {
    if (typeof store[method] !== 'function') throw new TypeError(`createCache: the store lacks the "${method}" method required by the store contract`);
  }
  for (const [name, value] of [
    ['prefix', options.prefix],
    ['namespace', options.namespace],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') throw new TypeError(`createCache: "${name}" must be a string`);
    const reserved = value === undefined ? undefined : reservedSegment(value);
    if (reserved) throw new RangeError(`createCache: "${name}" ${reserved}, got ${JSON.stringify(value)}`);
  }
  if (options.circuitBreaker !== undefined) checkKnownOptions(options.circuitBreaker, ['threshold', 'cooldownMs'], 'createCache: circuitBreaker');
  const threshold = options.circuitBreaker?.threshold ?? 5;
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`createCache: circuitBreaker.threshold must be a positive integer, got ${threshold}`);
  const cooldownMs = toMs(options.circuitBreaker?.cooldownMs ?? 2000, 'circuitBreaker.cooldownMs');
  // A local store has no round trip to save and cannot hang, so by default it skips both.
  const local = store.local === true;
  const timeoutMs = toMs(options.timeout ?? (local ? Infinity : 1000), 'timeout');
  if (timeoutMs === 0) throw new RangeError('createCache: timeout must be greater than 0');
  const ttlMs = options.ttl === undefined ? Infinity : toMs(options.ttl, 'ttl');
  if (ttlMs === 0) throw new RangeError('createCache: ttl must be greater than 0 (leave it out for no expiry)');
  const graceMs = toMs(options.grace ?? 0, 'grace');
  const staleIfErrorMs = options.staleIfError === undefined ? undefined : toMs(options.staleIfError, 'staleIfError');
  if (staleIfErrorMs !== undefined && !(staleIfErrorMs > graceMs)) throw new RangeError(`createCache: staleIfError (${staleIfErrorMs} ms) must be longer than grace (${graceMs} ms)`);
  const maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  if (!Number.isInteger(maxValueBytes) || maxValueBytes < 1) throw new RangeError(`createCache: maxValueBytes must be a positive integer, got ${maxValueBytes}`);
  const clock = options.clock ?? systemClock;
  if (typeof clock.now !== 'function') throw new TypeError('createCache: "clock" must have a now() method');
  if (options.logger !== undefined && options.logger !== false && (typeof options.logger?.warn !== 'function' || typeof options.logger.info !== 'function')) {
    throw new TypeError('createCache: "logger" must have info() and warn() methods (console does), or be false');
  }
  const lockTimeoutMs = toMs(options.lockTimeout ?? 5000, 'lockTimeout');
  const writeLeaseTtlMs = toMs(options.writeLeaseTtl ?? 10_000, 'writeLeaseTtl');
  for (const [name, ms] of [
    ['lockTimeout', lockTimeoutMs],
    ['writeLeaseTtl', writeLeaseTtlMs],
  ] as const) {
    // Both are store-side expiries: they must be finite, or a crashed process would block for ever.
    if (!(ms > 0 && Number.isFinite(ms))) throw new RangeError(`createCache: ${name} must be a finite duration greater than 0, got ${ms}`);
  }
  return {
    store: store as Store,
    closeStore: options.closeStore ?? true,
    keyPrefix: [options.prefix ?? 'cachette', options.namespace]
      .filter((segment) => segment)
      .map((segment) => `${segment}:`)
      .join(''),
    serializer: resolveSerializer(options.serializer),
    compression: resolveCompression(options.compression, store.compressionThreshold),
    ttlMs,
    graceMs,
    staleIfErrorMs,
    graceBackoffMs: toMs(options.graceBackoff ?? DEFAULT_GRACE_BACKOFF_MS, 'graceBackoff'),
    refreshAhead: options.refreshAhead === undefined ? undefined : checkRefreshAhead(options.refreshAhead, 'createCache'),
    ttlJitter: options.ttlJitter === undefined ? undefined : checkTtlJitter(options.ttlJitter, 'createCache'),
    xfetch: options.xfetch === undefined ? undefined : checkXfetch(options.xfetch, 'createCache'),
    negativeTtlMs: options.negativeTtl === undefined ? undefined : checkNegativeTtl(options.negativeTtl, 'createCache'),
    negative: resolveNegative(options.negative),
    timeoutMs,
    strict: options.strict ?? false,
    breaker: { threshold, cooldownMs },
    batch: options.batch ?? !local,
    factoryTimeoutMs: resolveFactoryTimeout(options.factoryTimeout),
    waitUntil: resolveWaitUntil(options.waitUntil),
    maxValueBytes,
    clock,
    logger: options.logger === false ? undefined : (options.logger ?? console),
    lockTimeoutMs,
    writeLeaseTtlMs,
    l1: options.l1 === undefined ? undefined : resolveL1(options.l1, store as Store),
    locationCache: options.locationCache === undefined ? undefined : resolveLocationCache(options.locationCache, options.l1),
    cdn: resolveCdn(options.cdn, options.cdnWait, options.cdnRetry),
    encryption: resolveEncryption(options.encryption),
  };
}

/** The default `negative`: `undefined` and `null` are a cached "nothing". */
export function isNothing(value: unknown): boolean {
  return value === undefined || value === null;
}

function resolveNegative(negative: ((value: unknown) => boolean) | undefined): (value: unknown) => boolean {
  if (negative !== undefined && typeof negative !== 'function') throw new TypeError(`createCache: "negative" must be a function (value) => boolean, got ${typeof negative}`);
  return negative ?? isNothing;
}

/** `factoryTimeout`: a duration greater than 0, or `false` (no limit). */
function resolveFactoryTimeout(factoryTimeout: Duration | false | undefined): number {
  if (factoryTimeout === false) return Infinity;
  const ms = toMs(factoryTimeout ?? DEFAULT_FACTORY_TIMEOUT_MS, 'factoryTimeout');
  if (ms === 0) throw new RangeError('createCache: factoryTimeout must be greater than 0 (false for no limit)');
  return ms;
}

function resolveWaitUntil(waitUntil: WaitUntil | undefined): WaitUntil | undefined {
  if (waitUntil !== undefined && typeof waitUntil !== 'function') throw new TypeError(`createCache: "waitUntil" must be a function (promise) => void, got ${typeof waitUntil}`);
  return waitUntil;
}

const DEFAULT_L1_ENTRIES = 10_000;
const DEFAULT_L1_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_STALENESS_MS = 1000;

/** Validates `l1`; `tracking` and `coherent` need a store that can deliver invalidations. */
function resolveL1(l1: L1Options, store: Store): ResolvedL1 {
  if (typeof l1 !== 'object' || l1 === null) throw new TypeError('createCache: "l1" must be an object ({ maxEntries, maxBytes, consistency, confirm, maxStaleness })');
  checkKnownOptions(l1, ['maxEntries', 'maxBytes', 'consistency', 'confirm', 'maxStaleness'] satisfies ReadonlyArray<keyof L1Options>, 'createCache: l1');
  const maxEntries = l1.maxEntries ?? DEFAULT_L1_ENTRIES;
  const maxBytes = l1.maxBytes ?? DEFAULT_L1_BYTES;
  for (const [name, n] of [
    ['maxEntries', maxEntries],
    ['maxBytes', maxBytes],
  ] as const) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`createCache: l1.${name} must be a positive integer, got ${n}`);
  }
  const consistency = l1.consistency ?? 'strict';
  if (consistency !== 'strict' && consistency !== 'tracking' && consistency !== 'coherent' && consistency !== 'bounded') {
    throw new TypeError(`createCache: l1.consistency must be "strict", "tracking", "coherent" or "bounded", got ${JSON.stringify(consistency)}`);
  }
  if (consistency === 'tracking' && typeof store.track !== 'function') {
    throw new MissingCapabilityError(store.name, 'tracking', 'l1: { consistency: "tracking" } needs server-assisted invalidation (Valkey/Redis); use consistency: "strict"');
  }
  const confirm = l1.confirm ?? 'lease';
  if (confirm !== 'lease' && confirm !== 'barrier') throw new TypeError(`createCache: l1.confirm must be "lease" or "barrier", got ${JSON.stringify(confirm)}`);
  if (l1.confirm !== undefined && consistency !== 'coherent') throw new TypeError('createCache: l1.confirm applies to consistency: "coherent" only');
  if (consistency === 'coherent' && typeof store.coherence !== 'function') {
    throw new MissingCapabilityError(
      store.name,
      'coherence',
      'l1: { consistency: "coherent" } needs an invalidation bus between the processes sharing the store, which the valkey store (one server or a cluster, on Node, Bun and Deno), the bun-redis store, the sqlite store and the postgres store (given a URL or a pg Pool, not a single Client) have and this store has not; use consistency: "strict", or "bounded" with a maxStaleness you can accept (docs/l1.md)',
    );
  }
  if (l1.maxStaleness !== undefined && consistency !== 'bounded') throw new TypeError('createCache: l1.maxStaleness applies to consistency: "bounded" only');
  const maxStalenessMs = toMs(l1.maxStaleness ?? DEFAULT_MAX_STALENESS_MS, 'l1.maxStaleness');
  if (!(maxStalenessMs > 0) || maxStalenessMs === Infinity) throw new RangeError(`createCache: l1.maxStaleness must be a finite duration greater than 0, got ${maxStalenessMs} ms`);
  return { maxEntries, maxBytes, consistency, confirm, maxStalenessMs };
}
