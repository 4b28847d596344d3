import type { Store, StoreEntry } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { EntryCodec, type DecodedEntry } from './entry-codec.ts';
import { CacheEvents, emptyStats, type CacheStats } from './events.ts';
import { resolveOptions, type CacheOptions, type ResolvedOptions } from './options.ts';
import { TickBatcher } from './tick-batcher.ts';
import { StoreGuard } from './store-guard.ts';
import { wrap, type AnyFunction, type WrapOptions, type WrappedFunction } from './wrap.ts';

/** Per-write options. */
export interface SetOptions {
  /** How long the value stays fresh; overrides the cache's `ttl`. */
  ttl?: Duration;
  /** How long after `ttl` a stale value may be served while one refresh runs; overrides `grace`. */
  grace?: Duration;
}

/** One entry for {@link Cache.setMany}. */
export interface SetManyEntry<T = unknown> extends SetOptions {
  key: string;
  value: T;
}

/** What a `getOrSet` factory receives. */
export interface FactoryContext<T> {
  /** The key being filled (without prefix). */
  key: string;
  /** The stale value being refreshed, when this is a background refresh. */
  stale: T | undefined;
}

/** Computes a value on a miss. */
export type Factory<T> = (context: FactoryContext<T>) => T | Promise<T>;

/** The cache returned by {@link createCache}. */
export interface Cache {
  /** Events: hit, miss, stale, coalesced, refresh, corrupt, error (see CacheEventMap). */
  readonly events: CacheEvents;
  /** The fresh value under `key`, or undefined. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Fresh values for `keys` in order, undefined for holes; one store round trip. */
  getMany<T = unknown>(keys: readonly string[]): Promise<Array<T | undefined>>;
  /** Stores `value`; resolves false when the store failed (the failure is an error event). */
  set<T>(key: string, value: T, options?: SetOptions): Promise<boolean>;
  /** Stores every entry in one round trip; resolves false when the store failed. */
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
   * one background refresh runs.
   */
  getOrSet<T>(key: string, factory: Factory<T>, options?: SetOptions): Promise<T>;
  /** `fn` with its calls going through getOrSet, keyed by its name and arguments (see WrapOptions). */
  wrap<F extends AnyFunction>(fn: F, options?: WrapOptions<Parameters<F>, ThisParameterType<F>>): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>>;
  /** Removes every key of this cache's prefix/namespace (needs a store with `clear`). */
  clear(): Promise<void>;
  /** A snapshot of the counters. */
  stats(): CacheStats;
  /** Waits for background refreshes and stops timers. The store stays open: it may be shared. */
  close(): Promise<void>;
}

/** Creates a cache over a store. See {@link CacheOptions}. */
export function createCache(options: CacheOptions): Cache {
  return new CacheEngine(resolveOptions(options));
}

type Lookup = { state: 'fresh' | 'stale'; entry: DecodedEntry } | undefined;

class CacheEngine implements Cache {
  readonly events = new CacheEvents();
  readonly #o: ResolvedOptions;
  readonly #store: Store;
  readonly #stats = emptyStats();
  readonly #codec: EntryCodec;
  readonly #guard: StoreGuard;
  readonly #batcher: TickBatcher | undefined;
  readonly #fills = new Map<string, Promise<unknown>>();
  readonly #refreshes = new Map<string, Promise<void>>();

  constructor(o: ResolvedOptions) {
    this.#o = o;
    this.#store = o.store;
    this.#codec = new EntryCodec(o.serializer, o.compression);
    this.#guard = new StoreGuard(o.store.name, o.timeoutMs, o.strict, o.breaker, this.events, this.#stats);
    if (o.batch) {
      const guard = this.#guard;
      const store = this.#store;
      this.#batcher = new TickBatcher({
        readOne: (key) => guard.run('get', [key], () => store.get(key), undefined),
        readMany: (keys) => guard.run('getMany', keys, () => store.getMany(keys), undefined),
        writeOne: (e) => guard.run('set', [e.key], () => store.set(e.key, e.value, e.ttlMs).then(() => true), false),
        writeMany: (entries) => guard.run('setMany', entries.map((e) => e.key), () => store.setMany(entries).then(() => true), false),
      });
    }
  }

  get<T>(key: string): Promise<T | undefined> {
    // The hot path: one promise chain, no extra async frames.
    let full: string;
    try {
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#readBytes(full).then((bytes) => {
      const entry = this.#decode(key, bytes);
      if (entry !== undefined && Date.now() < entry.freshUntil) return this.#hit(key, entry.value as T);
      this.#miss(key);
      return undefined;
    });
  }

  async getMany<T>(keys: readonly string[]): Promise<Array<T | undefined>> {
    const fulls = keys.map((k) => this.#full(k));
    if (fulls.length === 0) return [];
    const raw = await this.#run('getMany', fulls, () => this.#store.getMany(fulls), undefined);
    const now = Date.now();
    return keys.map((key, i) => {
      const entry = this.#decode(key, raw?.[i]);
      if (entry && now < entry.freshUntil) return this.#hit(key, entry.value as T);
      this.#miss(key);
      return undefined;
    });
  }

  async set<T>(key: string, value: T, options?: SetOptions): Promise<boolean> {
    const full = this.#full(key);
    const [bytes, ttlMs] = this.#encode(key, value, options);
    return this.#write(full, bytes, ttlMs);
  }

  async setMany<T>(entries: ReadonlyArray<SetManyEntry<T>>): Promise<boolean> {
    if (entries.length === 0) return true;
    let bytes = 0;
    const items = entries.map((e) => {
      const [value, ttlMs] = this.#encode(e.key, e.value, e);
      bytes += value.length;
      return { key: this.#full(e.key), value, ttlMs };
    });
    const ok = await this.#run('setMany', items.map((i) => i.key), () => this.#store.setMany(items).then(() => true), false);
    if (ok) this.#stats.bytesWritten += bytes;
    return ok;
  }

  async incr(key: string, by = 1, options?: { ttl?: Duration }): Promise<number | undefined> {
    if (!Number.isSafeInteger(by)) throw new TypeError(`cachette: incr("${key}") needs a safe integer step, got ${by}`);
    const full = this.#full(key);
    const ttlMs = options?.ttl === undefined ? undefined : storeTtl(toMs(options.ttl, 'ttl'), 0);
    return this.#run('incr', [full], () => this.#store.incr(full, by, ttlMs), undefined);
  }

  async delete(keys: string | readonly string[]): Promise<number> {
    const fulls = (typeof keys === 'string' ? [keys] : keys).map((k) => this.#full(k));
    if (fulls.length === 0) return 0;
    return this.#run('delete', fulls, () => this.#store.delete(fulls), 0);
  }

  async has(key: string): Promise<boolean> {
    return (await this.#lookup(key))?.state === 'fresh';
  }

  async getOrSet<T>(key: string, factory: Factory<T>, options?: SetOptions): Promise<T> {
    if (typeof factory !== 'function') throw new TypeError(`cachette: getOrSet("${key}") needs a factory function`);
    const full = this.#full(key);
    const filling = this.#fills.get(full);
    if (filling) return this.#coalesce(key, filling as Promise<T>);
    const found = await this.#lookup(key, full);
    if (found?.state === 'fresh') return this.#hit(key, found.entry.value as T);
    if (found?.state === 'stale') {
      this.#stats.staleServed++;
      this.events.emit('stale', { key });
      this.#refresh(key, full, factory, options, found.entry.value as T);
      return found.entry.value as T;
    }
    // Another caller may have started the fill while this one was reading.
    const started = this.#fills.get(full);
    if (started) return this.#coalesce(key, started as Promise<T>);
    this.#miss(key);
    const fill = this.#compute(key, full, factory, options, undefined);
    this.#fills.set(full, fill);
    const done = () => void this.#fills.delete(full);
    fill.then(done, done);
    return fill;
  }

  wrap<F extends AnyFunction>(fn: F, options?: WrapOptions<Parameters<F>, ThisParameterType<F>>): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>> {
    return wrap(this, fn, options);
  }

  async clear(): Promise<void> {
    if (!this.#store.clear) throw new TypeError(`cachette: the "${this.#store.name}" store cannot clear by prefix`);
    const prefix = this.#o.keyPrefix;
    await this.#run('clear', [prefix], () => this.#store.clear!(prefix), undefined);
  }

  stats(): CacheStats {
    return { ...this.#stats };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#refreshes.values(), ...this.#fills.values()]);
    this.#guard.close();
  }

  #full(key: string): string {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError(`cachette: a key must be a non-empty string, got ${JSON.stringify(key)}`);
    return this.#o.keyPrefix + key;
  }

  /** A guarded store call, issued in its place in this tick's order when batching. */
  #run<T, F>(operation: string, keys: readonly string[], call: () => Promise<T>, fallback: F): Promise<T | F> {
    if (!this.#batcher) return this.#guard.run(operation, keys, call, fallback);
    return this.#batcher.call(() => this.#guard.run(operation, keys, call, fallback));
  }

  #readBytes(full: string): Promise<Uint8Array | undefined> {
    return this.#batcher ? this.#batcher.read(full) : this.#guard.run('get', [full], () => this.#store.get(full), undefined);
  }

  async #lookup(key: string, full = this.#full(key)): Promise<Lookup> {
    const bytes = await this.#readBytes(full);
    const entry = this.#decode(key, bytes);
    if (!entry) return undefined;
    const now = Date.now();
    if (now < entry.freshUntil) return { state: 'fresh', entry };
    if (now < entry.staleUntil) return { state: 'stale', entry };
    return undefined;
  }

  #decode(key: string, bytes: Uint8Array | undefined): DecodedEntry | undefined {
    if (bytes === undefined) return undefined;
    this.#stats.bytesRead += bytes.length;
    try {
      return this.#codec.decode(bytes);
    } catch (error) {
      this.#stats.corrupt++;
      this.events.emit('corrupt', { key, reason: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  #encode(key: string, value: unknown, options: SetOptions | undefined): [Uint8Array, number | undefined] {
    const freshFor = options?.ttl === undefined ? this.#o.ttlMs : toMs(options.ttl, 'ttl');
    const staleFor = options?.grace === undefined ? this.#o.graceMs : toMs(options.grace, 'grace');
    const bytes = this.#codec.encode(key, value, Date.now(), freshFor, staleFor, []);
    return [bytes, storeTtl(freshFor, staleFor)];
  }

  async #write(full: string, bytes: Uint8Array, ttlMs: number | undefined): Promise<boolean> {
    const entry: StoreEntry = { key: full, value: bytes, ttlMs };
    const ok = this.#batcher
      ? await this.#batcher.write(entry)
      : await this.#guard.run('set', [full], () => this.#store.set(full, bytes, ttlMs).then(() => true), false);
    if (ok) this.#stats.bytesWritten += bytes.length;
    return ok;
  }

  async #compute<T>(key: string, full: string, factory: Factory<T>, options: SetOptions | undefined, stale: T | undefined): Promise<T> {
    let value: T;
    try {
      value = await factory({ key, stale });
    } catch (error) {
      this.#stats.factoryErrors++;
      throw error;
    }
    const [bytes, ttlMs] = this.#encode(key, value, options);
    await this.#write(full, bytes, ttlMs);
    return value;
  }

  #refresh<T>(key: string, full: string, factory: Factory<T>, options: SetOptions | undefined, stale: T): void {
    if (this.#refreshes.has(full)) return;
    this.#stats.refreshes++;
    this.events.emit('refresh', { key });
    const run = this.#compute(key, full, factory, options, stale).then(
      () => undefined,
      // Stale-if-error: the stale entry stays in place and keeps being served; the failure
      // is reported, never thrown, because no caller is waiting on a background refresh.
      (error: unknown) => this.events.emit('error', { source: 'factory', operation: 'refresh', keys: [key], error }),
    );
    this.#refreshes.set(full, run);
    run.then(() => this.#refreshes.delete(full));
  }

  #coalesce<T>(key: string, fill: Promise<T>): Promise<T> {
    this.#stats.coalesced++;
    this.events.emit('coalesced', { key });
    return fill;
  }

  #hit<T>(key: string, value: T): T {
    this.#stats.hits++;
    this.events.emit('hit', { key });
    return value;
  }

  #miss(key: string): void {
    this.#stats.misses++;
    this.events.emit('miss', { key });
  }
}

/** The store-side TTL: fresh plus grace, so stale entries survive their grace window. */
function storeTtl(freshFor: number, staleFor: number): number | undefined {
  const total = freshFor + staleFor;
  return Number.isFinite(total) ? Math.max(1, Math.ceil(total)) : undefined;
}
