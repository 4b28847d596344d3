import { CacheClosedError } from '../store/errors.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { checkGetOrSetOptions, checkIncrOptions, checkSetManyEntry, checkSetOptions } from './call-options.ts';
import { EngineContext } from './roles/context.ts';
import { Reads } from './roles/reads.ts';
import { storeTtl, Writes, type PreparedEntry } from './roles/writes.ts';
import { describeEngine } from './engine-view.ts';
import type { CacheEvents, CacheStats } from './events.ts';
import { FillHandler } from './fill/fill-handler.ts';
import { abortFactoryRuns } from './fill/factory-run.ts';
import { fillRequest, type FillRequest } from './fill/fill-request.ts';
import type { Lifetimes } from './roles/lifetimes.ts';
import { getOrSetManyRequests, inKeyOrder } from './fill/get-or-set-many.ts';
import { Inspector, MISSING } from './inspect.ts';
import { entryKey } from './key-space.ts';
import type { ResolvedOptions } from './options.ts';
import { checkTags } from './tags/tag-keys.ts';
import { WriteFences, type WriteFence } from './tags/write-fences.ts';
import type {
  BatchFactory,
  Cache,
  CacheHealth,
  CloseOptions,
  EntryInspection,
  Factory,
  GetOrSetOptions,
  InvalidateOptions,
  SetManyEntry,
  SetOptions,
  ValueLookup,
  WarmFactory,
  WarmOptions,
  WarmReport,
} from './types.ts';
import { openCdn } from './roles/cdn-purges.ts';
import type { CdnForwarding } from '../cdn/forwarding.ts';
import { Locks, type Lock, type LockOptions } from './lock/locks.ts';
import { checkWarm, warm } from './warm/warm.ts';
import { wrap, type AnyFunction, type WrapOptions, type WrappedFunction } from './wrap.ts';

const DEFAULT_CLOSE_TIMEOUT_MS = 5000;

/**
 * The front of the engine (docs/architecture.md#the-engine): it checks each call's arguments,
 * turns the caller's keys into store keys and hands the call to the role that does it, every
 * role holding the same {@link EngineContext} (the options, the codec, the counters and events,
 * the store path and the tier). Reads go to {@link Reads}, writes to {@link Writes}, `getOrSet`
 * coalescing, fill leases and refresh to {@link FillHandler}, tag invalidation and fenced
 * writes to {@link WriteFences}; store failures are reported and turned into the documented
 * fallback (a miss, `false`, `0`, `undefined`), or thrown when the cache is strict, by the
 * context's reports. Past its checks, nothing comes back here.
 */
export class CacheEngine implements Cache {
  readonly events: CacheEvents;
  readonly #ctx: EngineContext;
  readonly #prefix: string;
  readonly #reads: Reads;
  readonly #writes: Writes;
  readonly #fills: FillHandler;
  readonly #fences: WriteFences;
  readonly #inspector: Inspector;
  readonly #cdn: CdnForwarding | undefined;
  readonly #locks: Locks;
  #closed: Promise<void> | undefined;

  constructor(options: ResolvedOptions) {
    const ctx = new EngineContext(options);
    this.#ctx = ctx;
    this.events = ctx.events;
    this.#prefix = options.keyPrefix;
    this.#reads = new Reads(ctx);
    this.#writes = new Writes(ctx, this.#reads);
    this.#fills = new FillHandler(ctx, this.#reads, this.#writes);
    const { remote, tier, reports } = ctx;
    this.#fences = new WriteFences(ctx.path, (tag) => remote.keysOf(tag), options.writeLeaseTtlMs, {
      failed: (operation, keys, error) => reports.invalidationFailed(error, operation, keys),
      tagsInvalidated: (tags) => tier.tagsInvalidated(tags),
      now: () => ctx.now(),
      changed: (tags) => this.#cdn?.purge(tags, []),
    });
    this.#cdn = openCdn(this, ctx);
    this.#inspector = new Inspector(ctx.path, options.keyPrefix, ctx.codec, ctx.clock, options.negative);
    this.#locks = new Locks(ctx.path, options.keyPrefix, ctx.clock);
    describeEngine(this, { store: options.store, keyPrefix: options.keyPrefix, announcesWrites: options.l1?.consistency === 'coherent' });
  }

  get<T>(key: string): Promise<T | undefined> {
    let full: string;
    try {
      this.#open('get', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#reads.get<T>(key, full);
  }

  lookup<T>(key: string): Promise<ValueLookup<T> | undefined> {
    let full: string;
    try {
      this.#open('lookup', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#reads.lookupValue<T>(key, full);
  }

  getMany<T>(keys: readonly string[]): Promise<Array<T | undefined>> {
    let fulls: string[];
    try {
      this.#open('getMany', keys);
      fulls = keys.map((key) => this.#full(key));
    } catch (error) {
      return Promise.reject(error);
    }
    if (fulls.length === 0) return Promise.resolve([]);
    return this.#reads.getMany<T>(keys, fulls);
  }

  set<T>(key: string, value: T, options?: SetOptions): Promise<boolean> {
    // Not async: an async wrapper around the store's promise would cost every write two more ticks.
    let full: string;
    let tags: readonly string[];
    let lifetimes: Lifetimes;
    try {
      this.#open('set', key);
      full = this.#full(key);
      if (options !== undefined) checkSetOptions(options, 'set', key);
      lifetimes = this.#ctx.lifetimes(options);
      tags = checkTags(options?.tags, `set("${key}")`);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writes.set(key, full, value, lifetimes, tags);
  }

  setMany<T>(entries: ReadonlyArray<SetManyEntry<T>>): Promise<boolean> {
    let prepared: PreparedEntry[];
    try {
      this.#open('setMany', undefined);
      // Everything is validated before anything is encoded or sent.
      prepared = entries.map((entry) => {
        checkSetManyEntry(entry, 'setMany', entry?.key);
        return { full: this.#full(entry.key), lifetimes: this.#ctx.lifetimes(entry), tags: checkTags(entry.tags, `setMany("${entry.key}")`) };
      });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writes.setMany(entries, prepared);
  }

  incr(key: string, by = 1, options?: { ttl?: Duration }): Promise<number | undefined> {
    let full: string;
    let ttlMs: number | undefined;
    try {
      this.#open('incr', key);
      if (!Number.isSafeInteger(by)) throw new TypeError(`cachette: incr("${key}") needs a safe integer step, got ${by}`);
      full = this.#full(key);
      if (options !== undefined) checkIncrOptions(options, 'incr', key);
      if (options?.ttl !== undefined) {
        const ms = toMs(options.ttl, 'ttl');
        if (ms === 0) throw new RangeError(`cachette: incr("${key}") needs a ttl greater than 0 (leave it out for no expiry)`);
        ttlMs = storeTtl({ freshFor: ms, staleFor: 0 });
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writes.incr(full, by, ttlMs);
  }

  delete(keys: string | readonly string[]): Promise<number> {
    return this.#changed('delete', keys);
  }

  expire(keys: string | readonly string[]): Promise<number> {
    return this.#changed('expire', keys);
  }

  has(key: string): Promise<boolean> {
    let full: string;
    try {
      this.#open('has', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#reads.has(key, full);
  }

  getOrSet<T>(key: string, factory: Factory<T>, options?: GetOrSetOptions<T>): Promise<T> {
    // Every argument is checked before the store is read or the factory runs.
    let request: FillRequest<T>;
    try {
      this.#open('getOrSet', key);
      if (typeof factory !== 'function') throw new TypeError(`cachette: getOrSet("${key}") needs a factory function`);
      const full = this.#full(key);
      if (options !== undefined) checkGetOrSetOptions(options, 'getOrSet', key);
      request = fillRequest(key, full, factory, this.#ctx.lifetimes(options), options, this.#ctx.started());
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#fills.getOrSet(request);
  }

  getOrSetMany<T>(keys: readonly string[], factory: BatchFactory<T>, options?: GetOrSetOptions<T>): Promise<T[]> {
    let requests: Array<FillRequest<T>>;
    try {
      this.#open('getOrSetMany', keys);
      requests = getOrSetManyRequests(keys, factory, options, (key) => this.#full(key), this.#ctx.lifetimes(options), this.#ctx.started());
    } catch (error) {
      return Promise.reject(error);
    }
    return requests.length === 0 ? Promise.resolve([]) : this.#fills.getOrSetMany(requests, factory).then((values) => inKeyOrder(keys, requests, values));
  }

  invalidateTags(tags: readonly string[], options?: InvalidateOptions): Promise<boolean> {
    return this.#whenOpen('invalidateTags', tags, () => this.#fences.invalidate(tags, options));
  }

  inspect(key: string): Promise<EntryInspection> {
    let full: string;
    try {
      this.#open('inspect', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inspector.inspect(key, full).catch((error: unknown) => this.#ctx.reports.fallback(error, 'inspect', full, undefined, MISSING));
  }

  beginWrite(tags: readonly string[]): Promise<WriteFence> {
    return this.#whenOpen('beginWrite', tags, () => this.#fences.begin(tags));
  }

  mutate<T>(tags: readonly string[], fn: () => T | Promise<T>): Promise<T> {
    return this.#whenOpen('mutate', tags, () => this.#fences.mutate(tags, fn));
  }

  lock(name: string, options: LockOptions): Promise<Lock> {
    return this.#whenOpen('lock', [name], () => this.#locks.acquire(name, options));
  }

  warm<T>(keys: readonly string[], factory?: WarmFactory<T>, options?: WarmOptions<T>): Promise<WarmReport> {
    let concurrency: number;
    try {
      this.#open('warm', keys);
      if (!Array.isArray(keys)) throw new TypeError(`cachette: warm() needs an array of keys, got ${typeof keys}`);
      // Every key is checked before any is read or filled.
      for (const key of keys) this.#full(key);
      concurrency = checkWarm(factory, options);
      // Its ttl and grace, checked once here rather than failing every key.
      this.#ctx.lifetimes(options);
      if (factory === undefined && this.#ctx.options.l1 === undefined)
        throw new TypeError('cachette: warm(keys) without a factory reads stored values into the L1 tier, and this cache has none (the "l1" option)');
    } catch (error) {
      return Promise.reject(error);
    }
    return warm(this, this.#ctx.events, keys, factory, options, concurrency);
  }

  wrap<F extends AnyFunction>(fn: F, options?: WrapOptions<Parameters<F>, ThisParameterType<F>>): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>> {
    return wrap(this, fn, options);
  }

  async clear(): Promise<void> {
    this.#open('clear', undefined);
    await this.#writes.clear();
  }

  keys(prefix = ''): AsyncGenerator<string, void, undefined> {
    return this.#reads.keys(prefix);
  }

  stats(): CacheStats {
    return { ...this.#ctx.counters };
  }

  health(): CacheHealth {
    const { guard } = this.#ctx;
    return { reads: guard.isDown('read') ? 'down' : 'up', writes: guard.isDown('write') ? 'down' : 'up' };
  }

  async idle(): Promise<void> {
    const { background } = this.#ctx;
    // Work started while waiting (a refresh's own write) is waited for too.
    while (background.size > 0) await Promise.allSettled([...background]);
  }

  close(options?: CloseOptions): Promise<void> {
    this.#closed ??= this.#close(options);
    return this.#closed;
  }

  async #close(options: CloseOptions | undefined): Promise<void> {
    const timeoutMs = toMs(options?.timeout ?? DEFAULT_CLOSE_TIMEOUT_MS, 'close timeout');
    // Running factories learn through ctx.signal that nobody will store what they compute.
    abortFactoryRuns(this.#ctx, new DOMException('cachette: the cache is closing', 'AbortError'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Background work that never settles (a hung factory) must not hold close() for ever.
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    this.#cdn?.close();
    await this.#ctx.tier.close();
    await this.#ctx.path.close();
  }

  /**
   * Throws a {@link CacheClosedError} once close() was called: a closed cache takes no more
   * calls (it would otherwise answer from a store it may have closed, or write to one nobody
   * closes). Background work started before close() goes on through the engine's own paths.
   */
  #open(method: string, subject: string | readonly unknown[] | undefined): void {
    if (this.#closed !== undefined) throw new CacheClosedError(`${method}(${subject === undefined ? '' : JSON.stringify(subject)})`);
  }

  /** `call()` once {@link #open} passes, its throw as a rejection. */
  #whenOpen<T>(method: string, subject: readonly string[], call: () => Promise<T>): Promise<T> {
    try {
      this.#open(method, subject);
    } catch (error) {
      return Promise.reject(error);
    }
    return call();
  }

  #full(key: string): string {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError(`cachette: a key must be a non-empty string, got ${JSON.stringify(key)}`);
    return entryKey(this.#prefix, key);
  }

  /** `delete` or `expire` of one key or several, checked here; none counts 0. */
  #changed(operation: 'delete' | 'expire', keys: string | readonly string[]): Promise<number> {
    let fulls: string[];
    try {
      this.#open(operation, keys);
      fulls = (typeof keys === 'string' ? [keys] : keys).map((key) => this.#full(key));
    } catch (error) {
      return Promise.reject(error);
    }
    if (fulls.length === 0) return Promise.resolve(0);
    return operation === 'delete' ? this.#writes.delete(fulls) : this.#writes.expire(fulls);
  }
}
