import { StoreBusyError } from '../../store/errors.ts';
import type { Clock } from '../clock.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import { MissingCapabilityError } from '../errors.ts';
import type { CacheEvents, CacheStats } from '../events.ts';
import { callerKeyOf, entryKey } from '../key-space.ts';
import { NO_TAGS } from '../tags/tag-keys.ts';
import type { TagSnapshot, Tier, TierRead } from '../tiers/tier.ts';
import type { ValueLookup } from '../types.ts';
import type { EngineContext } from './context.ts';
import type { StoreReports } from './reports.ts';

/** A read as `getOrSet` sees it: fresh, stale (inside grace), or nothing usable. */
export type Lookup<T> =
  /** With the entry's write time and freshness, which say when a refresh-ahead is due. */
  | { state: 'fresh'; value: T; createdAt: number; freshUntil: number; version?: string | number; computeMs?: number | undefined }
  | { state: 'stale'; value: T; version?: string | number }
  /** Past grace, still kept by the store (a stale-if-error window was asked for): a miss, unless the source fails. */
  | { state: 'expired'; value: T; freshUntil: number; version?: string | number }
  | undefined;

/** A read with the state of the tags the caller named (undefined when none were, or the read failed). */
export interface TaggedLookup<T> {
  readonly found: Lookup<T>;
  /** May be built when first asked for: read it only when it is needed (a miss, a stale read). */
  readonly snapshot: TagSnapshot | undefined;
  /** The store failed: the fill takes no lease (it would cost a second timeout) and computes at once. */
  failed?: boolean;
}

/**
 * The read role (docs/architecture.md#the-engine): reads through the {@link Tier}, judges what
 * it found on the cache's clock, counts hits and misses, and turns a store failure into the
 * documented miss. The front's `get`, `getMany`, `has` and `keys` end here, and so do the
 * fill handler's lookups.
 */
export class Reads {
  /** True when the tier reads synchronously: {@link lookupNow} may then be called. */
  readonly synchronous: boolean;
  readonly #tier: Tier;
  readonly #clock: Clock;
  readonly #counters: CacheStats;
  readonly #events: CacheEvents;
  readonly #reports: StoreReports;
  readonly #ctx: EngineContext;

  constructor(ctx: EngineContext) {
    this.#ctx = ctx;
    this.#tier = ctx.tier;
    this.#clock = ctx.clock;
    this.#counters = ctx.counters;
    this.#events = ctx.events;
    this.#reports = ctx.reports;
    this.synchronous = ctx.tier.readNow !== undefined;
  }

  /** `cache.get` of `key` (store key `full`), its arguments checked by the front. */
  get<T>(key: string, full: string): Promise<T | undefined> {
    return this.#readOne(key, full, this.#served) as Promise<T | undefined>;
  }

  /**
   * `cache.lookup` of `key` (store key `full`): like {@link get}, counted the same way (a hit
   * when fresh, else a miss), but a value inside its grace is returned too, with how long it
   * has been stale.
   */
  lookupValue<T>(key: string, full: string): Promise<ValueLookup<T> | undefined> {
    return this.#readOne(key, full, this.#withGrace) as Promise<ValueLookup<T> | undefined>;
  }

  /** One entry read through the tier, answered by `answer`; a store failure is a counted miss. */
  #readOne<R>(key: string, full: string, answer: (key: string, entry: DecodedEntry | undefined, started: number) => R): Promise<R | undefined> {
    // The hot path: one promise chain, no async frame; none at all on a store that answers synchronously.
    const started = this.#ctx.started();
    const tier = this.#tier;
    if (tier.readNow) {
      try {
        return Promise.resolve(answer(key, tier.readNow(key, full, NO_TAGS).entry, started));
      } catch (error) {
        // A store too busy to answer now: the promise below waits for it.
        if (!(error instanceof StoreBusyError)) return settle(() => this.#reports.fallback(error, 'get', key, () => this.miss(key, started), undefined));
      }
    }
    return tier.read(key, full, NO_TAGS).then(
      ({ entry }) => answer(key, entry, started),
      (error: unknown) => this.#reports.fallback(error, 'get', key, () => this.miss(key, started), undefined),
    );
  }

  /** What {@link lookupValue} answers for `entry`, counted. */
  readonly #withGrace = (key: string, entry: DecodedEntry | undefined, started: number): ValueLookup<unknown> | undefined => {
    const now = this.#clock.now();
    if (entry !== undefined && now < entry.freshUntil) {
      this.hit(key, started);
      return { value: entry.value, state: 'fresh', staleMs: 0 };
    }
    this.miss(key, started);
    if (entry === undefined || !(now < entry.staleUntil)) return undefined;
    const since = staleSince(entry);
    return { value: entry.value, state: 'stale', staleMs: Number.isFinite(since) ? Math.max(0, now - since) : 0 };
  };

  /** The value of a fresh entry (a hit), or undefined (a miss). */
  readonly #served = (key: string, entry: DecodedEntry | undefined, started: number): unknown => {
    if (entry !== undefined && this.#clock.now() < entry.freshUntil) {
      this.hit(key, started);
      return entry.value;
    }
    this.miss(key, started);
    return undefined;
  };

  /** `cache.getMany` of `keys` (store keys `fulls`, at least one). */
  getMany<T>(keys: readonly string[], fulls: readonly string[]): Promise<Array<T | undefined>> {
    const started = this.#ctx.started();
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
        if (!(error instanceof StoreBusyError)) return settle(() => answer(this.#reports.fallback(error, 'getMany', fulls, undefined, undefined)));
      }
    }
    return tier.readMany(keys, fulls).then(answer, (error: unknown) => answer(this.#reports.fallback(error, 'getMany', fulls, undefined, undefined)));
  }

  /** `cache.has`: whether a fresh entry is there (counting nothing). */
  async has(key: string, full: string): Promise<boolean> {
    let found: TaggedLookup<unknown> | undefined;
    if (this.synchronous) {
      try {
        found = this.lookupNow(key, full, NO_TAGS);
      } catch (error) {
        if (!(error instanceof StoreBusyError)) throw error;
      }
    }
    found ??= await this.lookup(key, full, NO_TAGS);
    return found.found?.state === 'fresh';
  }

  /** Reads and decodes `full` and the state of `tags`; counts nothing; a store failure is a miss without snapshot. */
  lookup<T>(key: string, full: string, tags: readonly string[]): Promise<TaggedLookup<T>> {
    return this.#tier.read(key, full, tags).then(
      (read) => this.#lookupOf<T>(read),
      (error: unknown) => this.#reports.fallback(error, 'get', full, undefined, NOTHING_FOUND),
    );
  }

  /**
   * {@link lookup} without a promise, only when {@link synchronous} (a failure still becomes the
   * miss; in strict mode it throws). It throws a {@link StoreBusyError} when the store could
   * answer only by waiting: call {@link lookup}.
   */
  lookupNow<T>(key: string, full: string, tags: readonly string[]): TaggedLookup<T> {
    let read: TierRead;
    try {
      read = this.#tier.readNow!(key, full, tags);
    } catch (error) {
      // Thrown on: the caller makes the asynchronous read.
      if (error instanceof StoreBusyError) throw error;
      return this.#reports.fallback(error, 'get', full, undefined, NOTHING_FOUND);
    }
    return this.#lookupOf<T>(read);
  }

  /** {@link lookup} of untagged keys, in one store call. */
  lookupMany<T>(keys: readonly string[], fulls: readonly string[]): Promise<Array<TaggedLookup<T>>> {
    const answer = (entries: ReadonlyArray<DecodedEntry | undefined>) => entries.map((entry) => this.#lookupOf<T>({ entry, snapshot: undefined }));
    return this.#tier.readMany(keys, fulls).then(answer, (error: unknown) => keys.map(() => this.#reports.fallback(error, 'getMany', fulls, undefined, NOTHING_FOUND)));
  }

  #lookupOf<T>(read: TierRead): TaggedLookup<T> {
    const { entry } = read;
    let found: Lookup<T>;
    if (entry) {
      const now = this.#clock.now();
      const { version } = entry;
      if (now < entry.freshUntil) found = { state: 'fresh', value: entry.value as T, createdAt: entry.createdAt, freshUntil: entry.freshUntil, version, computeMs: entry.computeMs };
      else if (now < entry.staleUntil) found = { state: 'stale', value: entry.value as T, version };
      // Past grace, kept by the store for a stale-if-error window: the call decides.
      else found = { state: 'expired', value: entry.value as T, freshUntil: entry.freshUntil, version };
    }
    return new LookupOf(found, read);
  }

  /** The current state of `tags` alone, or undefined when the store failed. */
  snapshot(tags: readonly string[]): Promise<TagSnapshot | undefined> {
    return this.#tier.snapshot(tags).then(undefined, (error: unknown) => this.#reports.fallback(error, 'readWithGenerations', tags, undefined, undefined));
  }

  /** Counts and reports a hit. */
  hit(key: string, started: number): void {
    this.#counters.hits++;
    if (this.#events.listens('hit')) this.#events.emit('hit', { key, durationMs: started ? performance.now() - started : 0 });
  }

  /** Counts and reports a miss. */
  miss(key: string, started: number): void {
    this.#counters.misses++;
    if (this.#events.listens('miss')) this.#events.emit('miss', { key, durationMs: started ? performance.now() - started : 0 });
  }

  /** `cache.keys(prefix)`: the caller's keys under `prefix`, walked page by page. */
  async *keys(prefix: string): AsyncGenerator<string, void, undefined> {
    const { path, options } = this.#ctx;
    if (!path.keys) throw new MissingCapabilityError(options.store.name, 'keys', 'listing keys needs a store that can walk its keys (memory, valkey, sqlite)');
    const own = options.keyPrefix;
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

/**
 * When a stale entry turned stale, on the writer's clock: its grace ends `graceMs` after that,
 * however it got there (its ttl ran out, `expire` cut it, or a soft tag move made it stale at
 * once and counted its grace from the move: tiers/remote-reads.ts, softlyMoved). Its fresh-until
 * when the grace is endless.
 */
function staleSince(entry: DecodedEntry): number {
  return Number.isFinite(entry.graceMs) && Number.isFinite(entry.staleUntil) ? entry.staleUntil - entry.graceMs : entry.freshUntil;
}

/** A read the store failed: nothing found, no tag state. */
const NOTHING_FOUND: TaggedLookup<never> = Object.freeze({ found: undefined, snapshot: undefined, failed: true });

/** `compute()` as a promise: its value, or its throw as a rejection. */
function settle<T>(compute: () => T): Promise<T> {
  try {
    return Promise.resolve(compute());
  } catch (error) {
    return Promise.reject(error);
  }
}
