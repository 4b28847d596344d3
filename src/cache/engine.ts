import { CacheClosedError, CircuitOpenError, errorMessage, StoreBusyError, StoreClosedError } from '../store/errors.ts';
import type { TagGeneration } from '../codec/envelope.ts';
import type { StoreEntry } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import type { Clock } from './clock.ts';
import { EntryCodec, type DecodedEntry } from './entry-codec.ts';
import { MissingCapabilityError, ValueTooLargeError } from './errors.ts';
import { handOff, type WaitUntil } from './background.ts';
import { checkGetOrSetOptions, checkIncrOptions, checkSetManyEntry, checkSetOptions } from './call-options.ts';
import { CacheEvents, emptyStats, type CacheStats } from './events.ts';
import { FillHandler, type BatchFactory, type EntryWrite, type FillHost, type FillRequest, type Lifetimes, type Lookup, type TaggedLookup } from './fill-handler.ts';
import { fillRequest } from './fill/fill-request.ts';
import { getOrSetManyRequests, inKeyOrder } from './fill/get-or-set-many.ts';
import { keptFor, lifetimesOf } from './fill/lifetimes.ts';
import { versionOf, withVersion } from './fill/versioned.ts';
import { expireEntries } from './expire.ts';
import { Inspector, MISSING } from './inspect.ts';
import { callerKeyOf, entryKey } from './key-space.ts';
import { FillLeases } from './leases/fill-leases.ts';
import type { ResolvedOptions } from './options.ts';
import type { HealthChange } from './path/breaker.ts';
import { buildPath } from './path/build-path.ts';
import type { GenerationLayer } from './path/generations.ts';
import type { GuardLayer, GuardReporter } from './path/guard.ts';
import { checkTags, NO_TAGS } from './tags/tag-keys.ts';
import { WriteFences, type WriteFence } from './tags/write-fences.ts';
import { L1Copies } from './tiers/l1-copies.ts';
import { Reachability } from './reachability.ts';
import { strictStoreError } from './strict-error.ts';
import { RemoteReads } from './tiers/remote-reads.ts';
import { SingleTier } from './tiers/single-tier.ts';
import { StrictTier } from './tiers/strict-tier.ts';
import type { TagSnapshot, Tier, TierHost, TierRead } from './tiers/tier.ts';
import { TrackingTier } from './tiers/tracking-tier.ts';
import { BoundedTier } from './tiers/bounded-tier.ts';
import { CoherentTier, openCoherence, type CoherentHost } from './tiers/coherent-tier.ts';
import type { Cache, CacheHealth, CloseOptions, EntryInspection, Factory, GetOrSetOptions, InvalidateOptions, SetManyEntry, SetOptions } from './types.ts';
import { wrap, type AnyFunction, type WrapOptions, type WrappedFunction } from './wrap.ts';

/** Entries encoded and sent per slice of a large setMany, between which the event loop runs. */
const SET_MANY_SLICE = 256;
const DEFAULT_CLOSE_TIMEOUT_MS = 5000;

/**
 * The front of the engine (docs/architecture.md#the-engine): key prefixing, the codec, events
 * and stats. Reads go through the {@link Tier} chosen by topology (the store alone, or an L1
 * in front of it), writes down the path built by {@link buildPath} (generations → batcher →
 * guard → store); `getOrSet` coalescing, fill leases and refresh live in {@link FillHandler},
 * tag invalidation and fenced writes in {@link WriteFences}. A store failure arrives here
 * already reported by the guard and becomes the documented fallback (a miss, `false`, `0`,
 * `undefined`), or is thrown when the cache is strict.
 */
export class CacheEngine implements Cache, FillHost, GuardReporter, TierHost, CoherentHost {
  readonly events = new CacheEvents();
  /** The live counters (the fill handler counts into them; `stats()` returns a copy). */
  readonly counters = emptyStats();
  readonly factoryTimeoutMs: number;
  readonly lockTimeoutMs: number;
  readonly leases: FillLeases | undefined;
  readonly #closing = new AbortController();
  readonly #options: ResolvedOptions;
  readonly #clock: Clock;
  readonly #codec: EntryCodec;
  readonly #path: GenerationLayer;
  readonly #guard: GuardLayer;
  readonly #tier: Tier;
  readonly #fences: WriteFences;
  readonly #fills: FillHandler;
  readonly #inspector: Inspector;
  readonly #background = new Set<Promise<unknown>>();
  /** Failures the guard already reported, so that the front reports only what it did not see. */
  readonly #reported = new WeakSet<object>();
  /** The lifetimes of a call that sets neither ttl nor grace, resolved once. */
  readonly #defaults: Lifetimes;
  /** Says in the log when the store stops answering and when it answers again; none without a logger. */
  readonly #reachability: Reachability | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.#clock = options.clock;
    this.factoryTimeoutMs = options.factoryTimeoutMs;
    this.#defaults =
      options.staleIfErrorMs === undefined ? { freshFor: options.ttlMs, staleFor: options.graceMs } : { freshFor: options.ttlMs, staleFor: options.graceMs, errorFor: options.staleIfErrorMs };
    this.#reachability = options.logger && new Reachability(options.store, options.logger);
    this.#codec = new EntryCodec(options.serializer, options.compression, options.maxValueBytes);
    const bus = options.l1?.consistency === 'coherent' ? openCoherence(options.store, { confirm: options.l1.confirm }) : undefined;
    const path = buildPath({
      store: options.store,
      closeStore: options.closeStore,
      batch: options.batch,
      timeoutMs: options.timeoutMs,
      threshold: options.breaker.threshold,
      cooldownMs: options.breaker.cooldownMs,
      clock: options.clock,
      reporter: this,
      coherence: bus && { bus: bus.coherence, keyPrefix: options.keyPrefix },
    });
    this.#path = path.top;
    this.#guard = path.guard;
    this.lockTimeoutMs = options.lockTimeoutMs;
    const prefix = options.keyPrefix;
    const copies = options.l1 && new L1Copies(options.l1.maxEntries, options.l1.maxBytes);
    // What an L1 keeps is decoded into values that view nothing beyond their entry's bytes.
    const remote = new RemoteReads(this.#path, prefix, copies ? { decode: (key, bytes) => this.#decode(key, bytes, 0), outdated: (key, tags) => this.outdated(key, tags) } : this);
    if (!copies) this.#tier = new SingleTier(remote);
    else if (bus) {
      const tier = new CoherentTier(remote, copies, bus.coherence, options.l1!.confirm, prefix, this);
      bus.attach(tier);
      this.#tier = tier;
    } else if (options.l1!.consistency === 'tracking') this.#tier = new TrackingTier(remote, copies, this.#path, prefix);
    else if (options.l1!.consistency === 'bounded') this.#tier = new BoundedTier(remote, copies, options.clock, options.l1!.maxStalenessMs);
    else this.#tier = new StrictTier(remote, copies);
    this.leases = FillLeases.possible(this.#path) ? new FillLeases(this.#path, prefix, options.lockTimeoutMs, (operation, key, error) => this.#report(error, operation, key)) : undefined;
    this.#fences = new WriteFences(this.#path, (tag) => remote.keysOf(tag), options.writeLeaseTtlMs, {
      failed: (operation, keys, error) => this.#fallback(error, operation, keys, undefined, undefined),
      tagsInvalidated: (tags) => this.#tier.tagsInvalidated(tags),
      now: () => this.#clock.now(),
    });
    if (this.#tier.readNow) this.lookupNow = this.#lookupNow.bind(this);
    this.#fills = new FillHandler(this);
    this.#inspector = new Inspector(this.#path, prefix, this.#codec, this.#clock);
  }

  get<T>(key: string): Promise<T | undefined> {
    // The hot path: one promise chain, no async frame; none at all on a store that answers synchronously.
    let full: string;
    try {
      this.#open('get', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    const started = this.#timing() ? performance.now() : 0;
    const tier = this.#tier;
    if (tier.readNow) {
      let entry: DecodedEntry | undefined;
      try {
        entry = tier.readNow(key, full, NO_TAGS).entry;
        return Promise.resolve(this.#served<T>(key, entry, started));
      } catch (error) {
        // A store too busy to answer now: the promise below waits for it.
        if (!(error instanceof StoreBusyError)) return this.#settle(() => this.#fallback(error, 'get', key, () => this.miss(key, started), undefined));
      }
    }
    return tier.read(key, full, NO_TAGS).then(
      ({ entry }) => this.#served<T>(key, entry, started),
      (error: unknown) => this.#fallback(error, 'get', key, () => this.miss(key, started), undefined),
    );
  }

  /** The value of a fresh entry (a hit), or undefined (a miss). */
  #served<T>(key: string, entry: DecodedEntry | undefined, started: number): T | undefined {
    if (entry !== undefined && this.#clock.now() < entry.freshUntil) {
      this.hit(key, started);
      return entry.value as T;
    }
    this.miss(key, started);
    return undefined;
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
    const started = this.#timing() ? performance.now() : 0;
    const answer = (found: ReadonlyArray<DecodedEntry | undefined> | undefined) => {
      const now = this.#clock.now();
      // Every slot is written (a miss as undefined): an array with holes differs from
      // [undefined, …] for deepStrictEqual, `in` and forEach.
      const values = new Array<T | undefined>(keys.length);
      for (let i = 0; i < keys.length; i++) {
        const entry = found?.[i];
        if (entry !== undefined && now < entry.freshUntil) {
          this.hit(keys[i]!, started);
          values[i] = entry.value as T;
        } else {
          this.miss(keys[i]!, started);
          values[i] = undefined;
        }
      }
      return values;
    };
    const tier = this.#tier;
    if (tier.readManyNow) {
      try {
        return Promise.resolve(answer(tier.readManyNow(keys, fulls)));
      } catch (error) {
        if (!(error instanceof StoreBusyError)) return this.#settle(() => answer(this.#fallback(error, 'getMany', fulls, undefined, undefined)));
      }
    }
    return tier.readMany(keys, fulls).then(answer, (error: unknown) => answer(this.#fallback(error, 'getMany', fulls, undefined, undefined)));
  }

  set<T>(key: string, value: T, options?: SetOptions): Promise<boolean> {
    // Not async: an async wrapper around the store's promise would cost every write two more ticks.
    let full: string;
    let lifetimes: Lifetimes;
    let tags: readonly string[];
    try {
      this.#open('set', key);
      full = this.#full(key);
      if (options !== undefined) checkSetOptions(options, 'set', key);
      lifetimes = this.#lifetimes(options);
      tags = checkTags(options?.tags, `set("${key}")`);
    } catch (error) {
      return Promise.reject(error);
    }
    if (tags.length > 0) return this.#setTagged(key, full, value, lifetimes, tags);
    let bytes: Uint8Array | undefined;
    try {
      bytes = this.#encode(key, value, lifetimes, NO_GENERATIONS);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#send(full, bytes, lifetimes);
  }

  /**
   * A tagged set records the generations current now. During a write in progress on one of
   * the tags the value may predate the write's commit: it is not stored (false, a `fenced` event).
   */
  async #setTagged<T>(key: string, full: string, value: T, lifetimes: Lifetimes, tags: readonly string[]): Promise<boolean> {
    const snapshot = await this.snapshot(tags);
    if (snapshot === undefined) return false;
    if (snapshot.fenced.length > 0) {
      this.wasFenced(key, snapshot.fenced);
      return false;
    }
    return this.#send(full, this.#encode(key, value, lifetimes, snapshot.generations), lifetimes);
  }

  /** Stores encoded bytes (undefined: too large, reported already) and counts them. */
  #send(full: string, bytes: Uint8Array | undefined, lifetimes: Lifetimes): Promise<boolean> {
    this.#tier.forget([full]);
    if (bytes === undefined) return Promise.resolve(false);
    const size = bytes.length;
    return this.#path.set(full, bytes, storeTtl(lifetimes)).then(
      () => {
        this.counters.bytesWritten += size;
        return true;
      },
      (error: unknown) => this.#fallback(error, 'set', full, undefined, false),
    );
  }

  async setMany<T>(entries: ReadonlyArray<SetManyEntry<T>>): Promise<boolean> {
    this.#open('setMany', undefined);
    // Everything is validated before anything is encoded or sent.
    const prepared = entries.map((entry) => {
      checkSetManyEntry(entry, 'setMany', entry?.key);
      return { full: this.#full(entry.key), lifetimes: this.#lifetimes(entry), tags: checkTags(entry.tags, `setMany("${entry.key}")`) };
    });
    // Tagged entries record the generations current now: one read for every tag of the batch.
    const allTags = [...new Set(prepared.flatMap((one) => one.tags))];
    const snapshot = allTags.length > 0 ? await this.snapshot(allTags) : undefined;
    const current = new Map(snapshot?.generations.map((recorded) => [recorded.tag, recorded]));
    const fenced = new Set(snapshot?.fenced);
    this.#tier.forget(prepared.map((one) => one.full));
    let stored = true;
    const sends: Array<Promise<boolean>> = [];
    for (let start = 0; start < entries.length; start += SET_MANY_SLICE) {
      // A large batch is encoded (and compressed) slice by slice, letting the event loop run
      // between slices instead of stalling every other request for the whole batch.
      if (start > 0) await yieldToEventLoop();
      const slice: StoreEntry[] = [];
      let bytes = 0;
      for (let i = start; i < Math.min(start + SET_MANY_SLICE, entries.length); i++) {
        const { tags } = prepared[i]!;
        // Tags of unknown state (the store failed) or under a write lease: not stored.
        if (tags.length > 0 && (snapshot === undefined || tags.some((tag) => fenced.has(tag)))) {
          stored = false;
          continue;
        }
        const generations = tags.length === 0 ? NO_GENERATIONS : tags.map((tag) => current.get(tag)!);
        const encoded = this.#encode(entries[i]!.key, entries[i]!.value, prepared[i]!.lifetimes, generations);
        if (encoded === undefined) {
          stored = false;
          continue;
        }
        bytes += encoded.length;
        slice.push({ key: prepared[i]!.full, value: encoded, ttlMs: storeTtl(prepared[i]!.lifetimes) });
      }
      if (slice.length === 0) continue;
      sends.push(
        this.#path.setMany(slice).then(
          () => {
            this.counters.bytesWritten += bytes;
            return true;
          },
          (error: unknown) =>
            this.#fallback(
              error,
              'setMany',
              slice.map((entry) => entry.key),
              undefined,
              false,
            ),
        ),
      );
    }
    const results = await Promise.all(sends);
    return stored && results.every(Boolean);
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
    return this.#path.incr(full, by, ttlMs).then(undefined, (error: unknown) => this.#fallback(error, 'incr', full, undefined, undefined));
  }

  delete(keys: string | readonly string[]): Promise<number> {
    return this.#counted(keys, 'delete', (fulls) => this.#path.delete(fulls));
  }

  async has(key: string): Promise<boolean> {
    this.#open('has', key);
    const full = this.#full(key);
    let found: TaggedLookup<unknown> | undefined;
    if (this.lookupNow) {
      try {
        found = this.lookupNow(key, full, NO_TAGS);
      } catch (error) {
        if (!(error instanceof StoreBusyError)) throw error;
      }
    }
    found ??= await this.lookup(key, full, NO_TAGS);
    return found.found?.state === 'fresh';
  }

  getOrSet<T>(key: string, factory: Factory<T>, options?: GetOrSetOptions<T>): Promise<T> {
    // Every argument is checked before the store is read or the factory runs.
    let request: FillRequest<T>;
    try {
      this.#open('getOrSet', key);
      if (typeof factory !== 'function') throw new TypeError(`cachette: getOrSet("${key}") needs a factory function`);
      const full = this.#full(key);
      if (options !== undefined) checkGetOrSetOptions(options, 'getOrSet', key);
      request = fillRequest(key, full, factory, this.#lifetimes(options), options, this.#timing() ? performance.now() : 0);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#fills.getOrSet(request);
  }

  getOrSetMany<T>(keys: readonly string[], factory: BatchFactory<T>, options?: GetOrSetOptions<T>): Promise<T[]> {
    let requests: Array<FillRequest<T>>;
    try {
      this.#open('getOrSetMany', keys);
      requests = getOrSetManyRequests(keys, factory, options, (key) => this.#full(key), this.#lifetimes(options), this.#timing() ? performance.now() : 0);
    } catch (error) {
      return Promise.reject(error);
    }
    return requests.length === 0 ? Promise.resolve([]) : this.#fills.getOrSetMany(requests, factory).then((values) => inKeyOrder(keys, requests, values));
  }

  invalidateTags(tags: readonly string[], options?: InvalidateOptions): Promise<boolean> {
    return this.#whenOpen('invalidateTags', tags, () => this.#fences.invalidate(tags, options));
  }

  expire(keys: string | readonly string[]): Promise<number> {
    return this.#counted(keys, 'expire', (fulls) => expireEntries(this.#path, fulls, this.#clock.now()));
  }

  inspect(key: string): Promise<EntryInspection> {
    let full: string;
    try {
      this.#open('inspect', key);
      full = this.#full(key);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inspector.inspect(key, full).catch((error: unknown) => this.#fallback(error, 'inspect', full, undefined, MISSING));
  }

  beginWrite(tags: readonly string[]): Promise<WriteFence> {
    return this.#whenOpen('beginWrite', tags, () => this.#fences.begin(tags));
  }

  mutate<T>(tags: readonly string[], fn: () => T | Promise<T>): Promise<T> {
    return this.#whenOpen('mutate', tags, () => this.#fences.mutate(tags, fn));
  }

  wrap<F extends AnyFunction>(fn: F, options?: WrapOptions<Parameters<F>, ThisParameterType<F>>): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>> {
    return wrap(this, fn, options);
  }

  async clear(): Promise<void> {
    this.#open('clear', undefined);
    if (!this.#path.clear) throw new TypeError(`cachette: the "${this.#options.store.name}" store cannot clear by prefix`);
    const prefix = this.#options.keyPrefix;
    this.#tier.cleared();
    await this.#path.clear(prefix).catch((error: unknown) => this.#fallback(error, 'clear', prefix, undefined, undefined));
  }

  async *keys(prefix = ''): AsyncGenerator<string, void, undefined> {
    const path = this.#path;
    if (!path.keys) throw new MissingCapabilityError(this.#options.store.name, 'keys', 'listing keys needs a store that can walk its keys (memory, valkey, sqlite)');
    const own = this.#options.keyPrefix;
    const from = entryKey(own, prefix);
    let cursor: string | undefined;
    do {
      // A failed step ends the walk with the error: a partial listing must not pass for a whole one.
      const page = await path.keys(from, cursor);
      for (const stored of page.keys) {
        const key = callerKeyOf(own, stored);
        if (key !== undefined) yield key;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  health(): CacheHealth {
    return { reads: this.#guard.isDown('read') ? 'down' : 'up', writes: this.#guard.isDown('write') ? 'down' : 'up' };
  }

  async idle(): Promise<void> {
    // Work started while waiting (a refresh's own write) is waited for too.
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  close(options?: CloseOptions): Promise<void> {
    this.#closed ??= this.#close(options);
    return this.#closed;
  }

  async #close(options: CloseOptions | undefined): Promise<void> {
    const timeoutMs = toMs(options?.timeout ?? DEFAULT_CLOSE_TIMEOUT_MS, 'close timeout');
    // Running factories learn through ctx.signal that nobody will store what they compute.
    this.#closing.abort(new DOMException('cachette: the cache is closing', 'AbortError'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Background work that never settles (a hung factory) must not hold close() for ever.
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    await this.#tier.close();
    await this.#path.close();
  }

  // FillHost -------------------------------------------------------------------------------

  now(): number {
    return this.#clock.now();
  }

  get refreshAhead(): number | undefined {
    return this.#options.refreshAhead;
  }

  get graceBackoffMs(): number {
    return this.#options.graceBackoffMs;
  }

  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  lookupMany<T>(keys: readonly string[], fulls: readonly string[]): Promise<Array<TaggedLookup<T>>> {
    const answer = (entries: ReadonlyArray<DecodedEntry | undefined>) => entries.map((entry) => this.#lookupOf<T>({ entry, snapshot: undefined }));
    return this.#tier.readMany(keys, fulls).then(answer, (error: unknown) => keys.map(() => this.#fallback(error, 'getMany', fulls, undefined, NOTHING_FOUND)));
  }

  writeMany(writes: readonly EntryWrite[]): Promise<unknown> {
    this.#tier.forget(writes.map((write) => write.full));
    const entries: StoreEntry[] = [];
    let size = 0;
    for (const write of writes) {
      const bytes = this.#encode(write.key, withVersion(write.value, write.version), write.lifetimes, write.generations);
      if (bytes === undefined) continue;
      size += bytes.length;
      entries.push({ key: write.full, value: bytes, ttlMs: storeTtl(write.lifetimes) });
    }
    if (entries.length === 0) return Promise.resolve(false);
    return this.#path.setMany(entries).then(
      () => {
        this.counters.bytesWritten += size;
      },
      (error: unknown) =>
        this.#backgroundFailure(
          error,
          'setMany',
          entries.map((entry) => entry.key),
        ),
    );
  }

  lookup<T>(key: string, full: string, tags: readonly string[]): Promise<TaggedLookup<T>> {
    return this.#tier.read(key, full, tags).then(
      (read) => this.#lookupOf<T>(read),
      (error: unknown) => this.#fallback(error, 'get', full, undefined, NOTHING_FOUND),
    );
  }

  /** Set in the constructor when the tier reads synchronously (see {@link FillHost.lookupNow}). */
  readonly lookupNow?: <T>(key: string, full: string, tags: readonly string[]) => TaggedLookup<T>;

  #lookupNow<T>(key: string, full: string, tags: readonly string[]): TaggedLookup<T> {
    let read: TierRead;
    try {
      read = this.#tier.readNow!(key, full, tags);
    } catch (error) {
      // Thrown on: the caller makes the asynchronous read (see FillHost.lookupNow).
      if (error instanceof StoreBusyError) throw error;
      return this.#fallback(error, 'get', full, undefined, NOTHING_FOUND);
    }
    return this.#lookupOf<T>(read);
  }

  #lookupOf<T>(read: TierRead): TaggedLookup<T> {
    const { entry } = read;
    let found: Lookup<T>;
    if (entry) {
      const now = this.#clock.now();
      const { version } = entry;
      if (now < entry.freshUntil) found = { state: 'fresh', value: entry.value as T, createdAt: entry.createdAt, freshUntil: entry.freshUntil, version };
      else if (now < entry.staleUntil) found = { state: 'stale', value: entry.value as T, version };
      // Past grace, kept by the store for a stale-if-error window: the call decides.
      else found = { state: 'expired', value: entry.value as T, freshUntil: entry.freshUntil, version };
    }
    return new LookupOf(found, read);
  }

  snapshot(tags: readonly string[]): Promise<TagSnapshot | undefined> {
    return this.#tier.snapshot(tags).then(undefined, (error: unknown) => this.#fallback(error, 'readWithGenerations', tags, undefined, undefined));
  }

  wasFenced(key: string, tags: readonly string[]): void {
    this.counters.fenced++;
    if (this.events.listens('fenced')) this.events.emit('fenced', { key, tags });
  }

  // TierHost -------------------------------------------------------------------------------

  decode(key: string, bytes: Uint8Array): DecodedEntry | undefined {
    return this.#decode(key, bytes);
  }

  outdated(key: string, tags: readonly string[]): void {
    this.counters.outdated++;
    if (this.events.listens('outdated')) this.events.emit('outdated', { key, tags });
  }

  hit(key: string, started: number): void {
    this.counters.hits++;
    if (this.events.listens('hit')) this.events.emit('hit', { key, durationMs: started ? performance.now() - started : 0 });
  }

  miss(key: string, started: number): void {
    this.counters.misses++;
    if (this.events.listens('miss')) this.events.emit('miss', { key, durationMs: started ? performance.now() - started : 0 });
  }

  write(key: string, full: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[], version?: string | number): Promise<unknown> {
    this.#tier.forget([full]);
    const bytes = this.#encode(key, withVersion(value, version), lifetimes, generations);
    if (bytes === undefined) return Promise.resolve(false);
    const written = this.#path.set(full, bytes, storeTtl(lifetimes)).then(
      () => {
        this.counters.bytesWritten += bytes.length;
      },
      (error: unknown) => this.#backgroundFailure(error, 'set', full),
    );
    return written;
  }

  track(work: Promise<unknown>, waitUntil?: WaitUntil): void {
    handOff(work, waitUntil, this.#options.waitUntil);
    this.#background.add(work);
    const done = () => void this.#background.delete(work);
    work.then(done, done);
  }

  // CoherentHost ----------------------------------------------------------------------------

  bypassed(): void {
    this.counters.l1Bypassed++;
  }

  coherenceChanged(live: boolean): void {
    this.events.emit('coherence', { live });
  }

  // GuardReporter ---------------------------------------------------------------------------

  failed(operation: string, keys: string | readonly string[], error: unknown): void {
    this.counters.storeErrors++;
    if (typeof error === 'object' && error !== null) this.#reported.add(error);
    if (this.events.listens('error')) this.events.emit('error', { source: 'store', operation, keys: typeof keys === 'string' ? [keys] : keys, error });
  }

  skipped(): void {
    this.counters.storeSkipped++;
  }

  healthChanged(change: HealthChange): void {
    // The first failure is said before the breaker's lines, the recovery after them.
    if (change.state !== 'up') this.#reachability?.changed(change);
    if (change.state === 'failing' || change.state === 'answering') return;
    const store = this.#options.store;
    const label = store.address ? `${store.name} ${store.address}` : store.name;
    const what = change.kind === 'read' ? 'reads' : 'writes';
    if (change.state === 'down') {
      this.#options.logger?.warn(`cachette: ${label} ${what} down: ${change.cause} (${change.failures} consecutive failures); skipping them, one probe every ${this.#options.breaker.cooldownMs} ms`);
      this.events.emit('health', { store: store.name, address: store.address, kind: change.kind, state: 'down', cause: change.cause, failures: change.failures });
    } else {
      this.#options.logger?.info(`cachette: ${label} ${what} recovered after ${Math.round(change.downForMs)} ms (${change.skipped} calls skipped meanwhile)`);
      this.events.emit('health', { store: store.name, address: store.address, kind: change.kind, state: 'up', downForMs: change.downForMs, skipped: change.skipped });
      this.#reachability?.changed(change);
    }
  }

  // internals -------------------------------------------------------------------------------

  #timing(): boolean {
    return this.events.listens('hit') || this.events.listens('miss');
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
    return entryKey(this.#options.keyPrefix, key);
  }

  /**
   * `delete` and `expire`: `send` changes the entries of one key or several (this process's L1
   * copies dropped first) and counts them; a store failure counts 0.
   */
  #counted(keys: string | readonly string[], operation: string, send: (fulls: string[]) => Promise<number>): Promise<number> {
    let fulls: string[];
    try {
      this.#open(operation, keys);
      fulls = (typeof keys === 'string' ? [keys] : keys).map((key) => this.#full(key));
    } catch (error) {
      return Promise.reject(error);
    }
    if (fulls.length === 0) return Promise.resolve(0);
    this.#tier.forget(fulls);
    return send(fulls).then(undefined, (error: unknown) => this.#fallback(error, operation, fulls, undefined, 0));
  }

  #lifetimes(options: GetOrSetOptions<unknown> | undefined): Lifetimes {
    return options === undefined ? this.#defaults : lifetimesOf(options, this.#defaults);
  }

  /** Encodes a value, or reports it as too large and returns undefined (served, not stored). */
  #encode(key: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[]): Uint8Array | undefined {
    try {
      return this.#codec.encode(key, value, this.#clock.now(), lifetimes.freshFor, lifetimes.staleFor, generations);
    } catch (error) {
      if (!(error instanceof ValueTooLargeError)) throw error;
      this.counters.tooLarge++;
      this.events.emit('error', { source: 'encode', operation: 'set', keys: [key], error });
      if (this.#options.strict) throw error;
      return undefined;
    }
  }

  /** Decodes `bytes` (see EntryCodec.decode for `slack`), counting it; an unreadable entry is counted as corrupt. */
  #decode(key: string, bytes: Uint8Array | undefined, slack?: number): DecodedEntry | undefined {
    if (bytes === undefined) return undefined;
    this.counters.bytesRead += bytes.length;
    try {
      const entry = this.#codec.decode(bytes, slack);
      const { value, version } = versionOf(entry.value);
      if (version !== undefined) {
        entry.value = value;
        entry.version = version;
      }
      return entry;
    } catch (error) {
      this.counters.corrupt++;
      this.events.emit('corrupt', { key, reason: errorMessage(error) });
      return undefined;
    }
  }

  /** `compute()` as a promise: its value, or its throw as a rejection. */
  #settle<T>(compute: () => T): Promise<T> {
    try {
      return Promise.resolve(compute());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * What a failed store call becomes: thrown in strict mode, otherwise `fallback` (after
   * `onMiss`); a {@link StoreClosedError} is thrown as it is, whatever the mode, and not
   * reported. A failure the guard did not see (a bug above it) is reported here.
   */
  #fallback<F>(error: unknown, operation: string, keys: string | readonly string[], onMiss: (() => void) | undefined, fallback: F): F {
    // A closed store is the caller's mistake, not an outage to hide behind a miss: thrown as it is.
    if (error instanceof StoreClosedError) throw error;
    this.#report(error, operation, keys);
    if (this.#options.strict) throw strictStoreError(error, this.#options.store, operation);
    onMiss?.();
    return fallback;
  }

  /**
   * A failed write that no caller waits for (a fill's store write): the {@link #fallback},
   * except that a closed store is reported (an `error` event) instead of thrown at nobody.
   */
  #backgroundFailure(error: unknown, operation: string, keys: string | readonly string[]): void {
    if (error instanceof StoreClosedError) this.#report(error, operation, keys);
    else this.#fallback(error, operation, keys, undefined, undefined);
  }

  /** Reports a failure the guard did not see (a bug above it, or a layer's own error), and never one skipped by the breaker. */
  #report(error: unknown, operation: string, keys: string | readonly string[]): void {
    const seen = typeof error === 'object' && error !== null && this.#reported.has(error);
    if (!seen && !(error instanceof CircuitOpenError)) this.failed(operation, keys, error);
  }
}

/** A lookup whose snapshot is the tier read's own, taken (and so maybe built) only when asked for. */
class LookupOf<T> implements TaggedLookup<T> {
  constructor(
    readonly found: Lookup<T>,
    private readonly read: TierRead,
  ) {}

  get snapshot(): TagSnapshot | undefined {
    return this.read.snapshot;
  }
}

/** An entry written with no tags. */
const NO_GENERATIONS: readonly TagGeneration[] = Object.freeze([]);
/** A read the store failed: nothing found, no tag state. */
const NOTHING_FOUND: TaggedLookup<never> = Object.freeze({ found: undefined, snapshot: undefined, failed: true });

/** The store-side TTL: fresh plus grace (or the stale-if-error window), so stale entries survive it. */
function storeTtl(lifetimes: Lifetimes): number | undefined {
  const total = lifetimes.freshFor + keptFor(lifetimes);
  return Number.isFinite(total) ? Math.max(1, Math.ceil(total)) : undefined;
}

/** Lets timers and I/O run before continuing (setTimeout exists on every runtime). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
