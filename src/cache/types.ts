import type { Duration } from '../util/duration.ts';
import type { WaitUntil } from './background.ts';
import type { StandardSchema } from './fill/schema.ts';
import type { CacheEvents, CacheStats } from './events.ts';
import type { InvalidateOptions, WriteFence } from './tags/write-fences.ts';
import type { Lock, LockOptions } from './lock/locks.ts';

export type { InvalidateOptions } from './tags/write-fences.ts';
export type { Lock, LockOptions } from './lock/locks.ts';

/** Per-write options. */
export interface SetOptions {
  /** How long the value stays fresh; overrides the cache's `ttl`. */
  ttl?: Duration;
  /** How long after `ttl` a stale value may be served while one refresh runs; overrides `grace`. */
  grace?: Duration;
  /**
   * Takes up to this much off the ttl at random when the value is written, so keys written
   * together do not expire together: a fraction of the ttl strictly between 0 and 1 (`0.1`), or
   * a duration string (`'30s'`; never more than the ttl). Default: the cache's `ttlJitter`, else none.
   */
  ttlJitter?: number | Exclude<Duration, number>;
  /**
   * Tags the value depends on. Their generations are read before the value is computed (in the
   * same round trip as the entry read, for `getOrSet`) and recorded in the entry; once
   * `invalidateTags` or a fenced write moves one on, the entry is a miss. At most 64.
   */
  tags?: readonly string[];
}

/** Options of `getOrSet`: what is stored ({@link SetOptions}), and how the call behaves. */
export interface GetOrSetOptions<T = unknown> extends SetOptions {
  /**
   * Receives every background promise this call starts (a grace refresh, the store write after
   * a fill), so that a platform that freezes work after the response keeps it alive:
   * `{ waitUntil: ctx.waitUntil.bind(ctx) }`. Default: the cache's `waitUntil`, else the one of
   * the request a cachette binding is handling (the Workers binding, the Hono middleware).
   */
  waitUntil?: WaitUntil;
  /**
   * A fraction of the ttl (e.g. `0.8`): a hit on an entry older than that starts one background
   * refresh (like a grace refresh: `ctx.stale` is the current value) and is served at once, so
   * that a hot key is renewed before it turns stale. Default: the cache's `refreshAhead`, else none.
   */
  refreshAhead?: number;
  /**
   * Probabilistic early refresh (XFetch): a hit starts one background refresh, as refresh-ahead
   * does, when `now − Δ·β·ln(random()) ≥ expiry`, where Δ is how long the factory took (recorded
   * in the entry) and β this number (`true`: 1; larger refreshes earlier). Slow factories and hot
   * keys refresh earlier, and processes sharing a store do not all refresh at once. Default: the
   * cache's `xfetch`, else none.
   */
  xfetch?: boolean | number;
  /**
   * The ttl of a factory result the cache's `negative` predicate matches (by default `undefined`
   * and `null`): a cached "nothing", kept shorter (or longer) than values. `ctx.setOptions({ ttl })`
   * still wins. Default: the cache's `negativeTtl`, else the call's ttl.
   */
  negativeTtl?: Duration;
  /**
   * A Standard Schema validator (Zod, Valibot, ArkType, …): a stored value it refuses is a miss
   * (counted in `invalid`, an `invalid` event) and is refilled; what it returns is served. Default: none.
   */
  schema?: StandardSchema<T>;
  /**
   * The version of the code that computes the value (a string or a number): an entry stored
   * under another version is a miss (counted in `invalid`, an `invalid` event) and is refilled,
   * so a deploy that changes a value's shape never serves the old shape. Default: none.
   */
  version?: string | number;
  /**
   * How long past `ttl` the last value is kept to be served when the factory fails (throws,
   * times out, or calls `ctx.fail()`): longer than `grace`, inside which a stale value is served
   * anyway. A `staleOnError` event and counter tell it apart from ordinary stale hits. Default:
   * the cache's `staleIfError`, else none.
   */
  staleIfError?: Duration;
  /**
   * After the factory failed for a key, it is tried again at most this often for that key while
   * stale (or stale-if-error) values are served (each one a `staleOnError`) and fresh ones are
   * not refreshed ahead, instead of on every call. Default: the cache's `graceBackoff` (5 s
   * unless set; 0: tried on every call).
   */
  graceBackoff?: Duration;
}

/** One entry for {@link Cache.setMany}. */
export interface SetManyEntry<T = unknown> extends SetOptions {
  key: string;
  value: T;
}

/**
 * What a `getOrSet` factory receives: which key it fills, the value it replaces, a signal that
 * says when its work is no longer wanted, and controls over what the fill stores.
 */
export interface FactoryContext<T> {
  /** The key being filled (without prefix). */
  readonly key: string;
  /** The value being replaced, when there is one: a background refresh's stale value. */
  readonly stale: T | undefined;
  /**
   * Aborted when the factory's time is up (`factoryTimeout`: its reason is the
   * FactoryTimeoutError its waiters get) or when the cache closes: pass it to `fetch` or your
   * database client so abandoned work stops.
   */
  readonly signal: AbortSignal;
  /**
   * Sets how what this fill returns is stored, from the value itself (a token that expires in
   * N seconds, an empty result to retry soon): `ttl`, `grace` and `tags` replace the call's.
   * Tags named here and not in the call's options have their generations read after the
   * factory (the call's own are read before it): name a tag in the call when a write to the
   * source may race the fill.
   */
  setOptions(options: SetOptions): void;
  /** The value the factory returns is served but not stored (nor does it replace a stale one). */
  skip(): void;
  /**
   * Gives up: nothing is stored; callers get `stale` when there is one, otherwise `error`
   * (default a FactoryFailedError). Throws, so `return ctx.fail(error)` ends the factory.
   */
  fail(error?: unknown): never;
}

/** What a `getOrSetMany` factory returns: the values of the keys it was given, in their order, or by key. */
export type BatchResult<T> = readonly T[] | ReadonlyMap<string, T>;

/** The factory of `getOrSetMany`, called once with the keys that missed. */
export type BatchFactory<T> = (keys: readonly string[], context: BatchFactoryContext<T>) => BatchResult<T> | Promise<BatchResult<T>>;

/** What a `getOrSetMany` factory receives: a factory context for every key it fills at once. */
export interface BatchFactoryContext<T> extends Omit<FactoryContext<T>, 'key' | 'stale'> {
  /** The keys being filled, in the order the values are expected. */
  readonly keys: readonly string[];
}

/** Computes a value on a miss. */
export type Factory<T> = (context: FactoryContext<T>) => T | Promise<T>;

/** Computes the value of one key `cache.warm` fills: it gets the key, and the context a `getOrSet` factory gets. */
export type WarmFactory<T> = (key: string, context: FactoryContext<T>) => T | Promise<T>;

/** Options of `cache.warm`: what is stored (as `getOrSet` takes them), and how many keys at once. */
export interface WarmOptions<T = unknown> extends GetOrSetOptions<T> {
  /** How many keys are filled at once (factories running, or store reads in flight): an integer from 1. Default: 8. */
  concurrency?: number;
}

/** What `cache.warm` did, once every key was tried. */
export interface WarmReport {
  /** Keys whose value this call's factory computed. */
  readonly filled: number;
  /** Keys already stored (or filled by another process while this one waited for its fill lease): no factory ran here. */
  readonly present: number;
  /** Keys without a stored value, when warming without a factory (nothing was computed for them). */
  readonly missing: number;
  /** Keys whose factory (or store read) failed, with the error; the other keys went on. */
  readonly failed: ReadonlyArray<{ readonly key: string; readonly error: unknown }>;
}

/** Options of {@link Cache.close}. */
export interface CloseOptions {
  /** How long to wait for background refreshes and writes before giving up on them. Default 5 s. */
  timeout?: Duration;
}

/** Whether reads and writes of the store currently reach it (see the `health` event). */
export interface CacheHealth {
  reads: 'up' | 'down';
  writes: 'up' | 'down';
}

/** The cache returned by `createCache`. */
export interface Cache {
  /** Typed events: hit, miss, stale, coalesced, refresh, fill, corrupt, error, health (see CacheEventMap). */
  readonly events: CacheEvents;
  /** The fresh value under `key`, or undefined. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /**
   * The value under `key` while it may still be served: fresh, or stale inside its grace (its
   * ttl ran out, `expire` or a soft `invalidateTags` made it stale), with how long it has been
   * stale; undefined when there is none. Counted as `get` counts (a hit only when fresh). For
   * callers that keep their own freshness and revalidate stale values themselves (the HTTP cache).
   */
  lookup<T = unknown>(key: string): Promise<ValueLookup<T> | undefined>;
  /** Fresh values for `keys` in order, undefined for holes; one store round trip. */
  getMany<T = unknown>(keys: readonly string[]): Promise<Array<T | undefined>>;
  /**
   * Stores `value`; resolves false when it was not stored: the store failed, or the value is
   * above `maxValueBytes` (either way an `error` event says why).
   */
  set<T>(key: string, value: T, options?: SetOptions): Promise<boolean>;
  /**
   * Stores every entry, in one round trip per slice of entries (large batches are encoded in
   * slices that let the event loop breathe); resolves false when any entry was not stored.
   */
  setMany<T = unknown>(entries: ReadonlyArray<SetManyEntry<T>>): Promise<boolean>;
  /** Adds `by` (default 1) to a counter; `ttl` applies when the counter is created. Undefined when the store failed. */
  incr(key: string, by?: number, options?: { ttl?: Duration }): Promise<number | undefined>;
  /** Deletes one key or several; resolves with how many existed. */
  delete(keys: string | readonly string[]): Promise<number>;
  /** True when a fresh value is stored under `key`. */
  has(key: string): Promise<boolean>;
  /**
   * The value under `key`, or the factory's result stored under it. Concurrent calls on a cold
   * key run the factory once; inside the grace window the stale value is served while exactly
   * one background refresh runs. The store write after a fill happens in the background: the
   * caller waits for the read and the factory, never for the write.
   */
  getOrSet<T>(key: string, factory: Factory<T>, options?: GetOrSetOptions<T>): Promise<T>;
  /**
   * `getOrSet` for several keys with one source call: the keys are read in one store round trip;
   * those fresh or stale are served as `getOrSet` serves them, those another call is already
   * filling are joined, and `factory(missingKeys, ctx)` is called once with the rest, returning
   * their values in that order (or a Map by key), which are written in one round trip. Resolves
   * with the values in the order of `keys`.
   */
  getOrSetMany<T>(keys: readonly string[], factory: BatchFactory<T>, options?: GetOrSetOptions<T>): Promise<T[]>;
  /**
   * Invalidates every entry recording one of `tags`, in every process sharing the store (their
   * generations move on; nothing is deleted). Resolves false when the store failed. With
   * `soft: true` the entries turn stale instead of missing: within their grace (counted from
   * now) the next `getOrSet` is served the old value while one refresh runs.
   */
  invalidateTags(tags: readonly string[], options?: InvalidateOptions): Promise<boolean>;
  /**
   * Marks fresh entries stale now: each keeps its grace, counted from now, during which the
   * next `getOrSet` is served the old value while one refresh runs. Resolves with how many
   * entries were fresh and are now stale (missing, already stale or unreadable ones are left alone).
   */
  expire(keys: string | readonly string[]): Promise<number>;
  /**
   * What is stored under `key`, judged like a read but changing nothing: no hit or miss is
   * counted, no event fires and no L1 copy is made.
   */
  inspect(key: string): Promise<EntryInspection>;
  /**
   * Call before writing to the source of truth: takes a write lease on each tag (concurrent
   * writers never wait for each other) and invalidates them. Until `commit()` (after the
   * source committed) or `abort()` (after a rollback), fills of those tags are served but not
   * stored, so a value read from the source before the commit can never be cached after it.
   */
  beginWrite(tags: readonly string[]): Promise<WriteFence>;
  /** `beginWrite(tags)`, `fn()`, then `commit()` (also when `fn` throws: the source may have changed). */
  mutate<T>(tags: readonly string[], fn: () => T | Promise<T>): Promise<T>;
  /**
   * Takes the lock `name` across every cache sharing the store (docs/lock.md): resolves once
   * this caller holds it, with a fencing token larger than every earlier holder's, or rejects
   * with a `LockTimeoutError` when another holder kept it for all of `wait`. It lasts until
   * `release()` or its `ttl`. Needs a store with leases (a `MissingCapabilityError` otherwise).
   * It makes duplicate work rare, not impossible: only a resource that checks the token is safe
   * from a holder whose lock lapsed.
   */
  lock(name: string, options: LockOptions): Promise<Lock>;
  /**
   * Warms `keys` (docs/warming.md). With a factory, each key is filled as `getOrSet` fills it
   * (the factory gets the key): a key already stored is left alone, and where the store holds
   * fill leases a fleet warming the same keys computes each once. Without one, the stored values
   * are read into the L1 tier (needs the `l1` option). At most `concurrency` at once; a key that
   * fails is reported and the others go on; each settled key emits a `warm` event.
   */
  warm<T = unknown>(keys: readonly string[], factory?: WarmFactory<T>, options?: WarmOptions<T>): Promise<WarmReport>;
  /** `fn` with its calls going through getOrSet, keyed by its name and arguments (see WrapOptions). */
  wrap<F extends AnyFunction>(fn: F, options?: WrapOptions<Parameters<F>, ThisParameterType<F>>): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>>;
  /**
   * The keys of this cache's entries that start with `prefix` (default: all), walked one store
   * round trip at a time (needs a store with `keys`: memory, valkey, sqlite). Every entry on the
   * store is listed, fresh or not (a read tells), tags' and leases' keys never; keys written or
   * removed during the walk may or may not be listed, and SCAN may list one twice.
   */
  keys(prefix?: string): AsyncIterableIterator<string>;
  /** Removes every key of this cache's prefix/namespace (needs a store with `clear`). */
  clear(): Promise<void>;
  /** A snapshot of the counters. */
  stats(): CacheStats;
  /** Whether reads and writes currently reach the store, or are skipped by the circuit breaker. */
  health(): CacheHealth;
  /** Resolves once the background refreshes and writes started so far have settled. */
  idle(): Promise<void>;
  /**
   * Waits (within a bound) for background refreshes and writes, stops timers, and closes the
   * store when this was the last cache over it (unless `closeStore: false`). From the moment it
   * is called, every method that reads, writes or invalidates rejects with a `CacheClosedError`
   * (`cachette/store`); `stats()`, `health()`, `idle()` and `close()` still answer.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** Options of `cache.wrap` and `@cached`. */
export interface WrapOptions<A extends unknown[] = unknown[], This = unknown> extends Omit<GetOrSetOptions, 'tags'> {
  /**
   * Builds the key of a call from its arguments (with the call's `this`); the result is used as
   * it is, so it can match keys you read or delete elsewhere. Default: the function's name and
   * a stable encoding of the arguments (see `argument-key.ts`), e.g. `getUser("42",{"full":true})`.
   */
  key?: (this: This, ...args: A) => string;
  /**
   * Replaces the function's name in the default key. Two functions wrapped under one name on
   * one cache share entries, so give each a distinct name when their own names clash (two
   * classes' `find`, or names a minifier shortened). Default: the function's `name`.
   */
  name?: string;
  /**
   * Tags for the stored entries, or a function of the call's arguments that returns them. Passed
   * through to `getOrSet`'s options: `cache.invalidateTags` and fenced writes on a tag make the
   * entries recording it misses.
   */
  tags?: readonly string[] | ((this: This, ...args: A) => readonly string[]);
}

/** The function returned by `cache.wrap`: `fn`'s parameters, a promise of its result, and key helpers. */
export interface WrappedFunction<A extends unknown[], R, This = unknown> {
  (this: This, ...args: A): Promise<R>;
  /** The key a call with these arguments reads and writes (a custom `key` is called without `this`). */
  keyFor(...args: A): string;
  /** Deletes the entry a call with these arguments would read; resolves true when one existed. */
  delete(...args: A): Promise<boolean>;
}

/** Any function: what `cache.wrap` accepts (its parameters, `this` and result are read from it). */
export type AnyFunction = (...args: never[]) => unknown;

/** What `lookup` found: a value that may still be served, and whether it is fresh. */
export interface ValueLookup<T> {
  readonly value: T;
  /** `fresh` (what `get` returns) or `stale` (inside its grace). */
  readonly state: 'fresh' | 'stale';
  /** Milliseconds since it turned stale, on the cache's clock (0 while fresh, and when that is not known: an endless grace). */
  readonly staleMs: number;
}

/** What `cache.inspect(key)` found. */
export interface EntryInspection {
  /** `fresh` (a hit), `stale` (inside its grace: served while refreshing) or `missing` (absent, expired, unreadable or outdated by a tag). */
  readonly state: 'fresh' | 'stale' | 'missing';
  /** Milliseconds since it was written (undefined when missing). */
  readonly age: number | undefined;
  /** Milliseconds left until it turns stale (0 once stale; Infinity without a ttl; undefined when missing). */
  readonly ttl: number | undefined;
  /** The tags it records (empty when missing). */
  readonly tags: readonly string[];
  /** True when its value matches the cache's `negative` predicate (a cached "nothing", by default `undefined` or `null`); false when missing. */
  readonly negative: boolean;
}
