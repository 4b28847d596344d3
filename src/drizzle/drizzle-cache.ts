/**
 * `cachetteCache(options)`: the `cache` option of `drizzle(client, { cache })`, as
 * `upstashCache()` is, over any cachette store or cache. It must be paired with
 * `withFencedWrites(db)` (fenced-writes.ts), which routes the queries: Drizzle's own calls of
 * `get` and `put` would store rows read while a write commits, so they are refused.
 */
import type { MutationOption } from 'drizzle-orm/cache/core';
import type { Table as DrizzleTable } from 'drizzle-orm/table';
import { createCache } from '../cache/create-cache.ts';
import type { Cache } from '../cache/types.ts';
import type { Store } from '../store/types.ts';
import { toMs, type Duration } from '../util/duration.ts';
import { checkKnownOptions } from '../util/known-options.ts';
import { DrizzleCache, entityKind, is, Table } from './drizzle-peer.ts';
import { QueryCache } from './query-cache.ts';
import { tableName } from './sql-tables.ts';

/** Options of {@link cachetteCache}: a `cache` or a `store`, exactly one. */
export interface CachetteCacheOptions {
  /** A cache from `createCache()`, shared with the rest of the app (its prefix, timeouts, L1, events apply). */
  cache?: Cache;
  /** A store to build a cache over (`createCache({ store })`), owned by this cache: `close()` closes it. */
  store?: Store;
  /** How long a query's rows stay cached, unless `$withCache({ config: { ex } })` says otherwise. Default: the cache's `ttl`. */
  ttl?: Duration;
  /** Cache every select, as Drizzle's `global: true` (strategy `all`); `.$withCache(false)` opts one out. Default false: only `.$withCache()` queries. */
  global?: boolean;
  /** First segment of every key and tag this writes, so one store holds several databases apart. Default "drizzle". */
  namespace?: string;
}

const KNOWN: ReadonlyArray<keyof CachetteCacheOptions> = ['cache', 'store', 'ttl', 'global', 'namespace'];

/** The engine side of each cachette/drizzle cache, for withFencedWrites (not exported by the entry). */
const engines = new WeakMap<CachetteCache, QueryCache>();

/** The engine side of `cache`. */
export function queryCacheOf(cache: CachetteCache): QueryCache {
  return engines.get(cache)!;
}

/** A Table object or a table's name, as Drizzle's `invalidate({ tables })` takes them. */
export type TableRef = DrizzleTable | string;

/** The cachette cache for Drizzle ORM; see {@link cachetteCache}. */
export class CachetteCache extends DrizzleCache {
  static override readonly [entityKind]: string = 'CachetteCache';
  readonly #global: boolean;
  readonly #owned: boolean;

  /** Validates `options` once; see {@link CachetteCacheOptions}. */
  constructor(options: CachetteCacheOptions) {
    super();
    if (!options || typeof options !== 'object') throw new TypeError('cachetteCache: needs an options object with a "cache" or a "store"');
    checkKnownOptions(options, KNOWN, 'cachetteCache');
    if ((options.cache === undefined) === (options.store === undefined)) throw new TypeError('cachetteCache: give exactly one of "cache" (from createCache) and "store"');
    if (options.cache !== undefined && typeof options.cache?.getOrSet !== 'function') throw new TypeError('cachetteCache: "cache" must be a cache from createCache()');
    if (options.global !== undefined && typeof options.global !== 'boolean') throw new TypeError('cachetteCache: "global" must be a boolean');
    const namespace = options.namespace ?? 'drizzle';
    if (typeof namespace !== 'string' || namespace === '') throw new TypeError('cachetteCache: "namespace" must be a non-empty string');
    const ttlMs = options.ttl === undefined ? undefined : toMs(options.ttl, 'cachetteCache: ttl');
    if (ttlMs === 0) throw new RangeError("cachetteCache: ttl must be greater than 0 (leave it out for the cache's own)");
    this.#global = options.global ?? false;
    this.#owned = options.cache === undefined;
    engines.set(this, new QueryCache(options.cache ?? createCache({ store: options.store! }), namespace, ttlMs));
  }

  /** The cachette cache underneath: its `events`, `stats()` and `idle()` cover Drizzle's queries. */
  get cache(): Cache {
    return queryCacheOf(this).cache;
  }

  /** Drizzle's strategy: `all` with `global: true`, else `explicit`. */
  override strategy(): 'explicit' | 'all' {
    return this.#global ? 'all' : 'explicit';
  }

  /** Refused: Drizzle calls this only for a database that `withFencedWrites(db)` did not route. */
  override get(): Promise<never> {
    return Promise.reject(notRouted());
  }

  /** Refused, as {@link get}. */
  override put(): Promise<never> {
    return Promise.reject(notRouted());
  }

  /**
   * `db.$cache.invalidate({ tables, tags })`: every cached query reading one of `tables`, and
   * every `$withCache({ tag })` query named in `tags`, is a miss from now on, in every process.
   * (Drizzle also calls it for the writes of a database not routed by `withFencedWrites`.)
   */
  override async onMutate(params: MutationOption): Promise<void> {
    await queryCacheOf(this).invalidate(tableNames(params.tables), namesOf(params.tags));
  }

  /**
   * Runs `fn`, a write Drizzle cannot see (raw SQL, a stored procedure, another client), inside
   * a fence on `tables`: reads of them racing it are served but not stored, and they are
   * invalidated once it settled. Inside `db.transaction(…)`, run its statements on the
   * transaction (`tx.execute(…)`): the fence then holds until the transaction has ended, after
   * its COMMIT, as the transaction's own writes do.
   */
  async mutate<T>(tables: TableRef | readonly TableRef[], fn: () => T | Promise<T>): Promise<T> {
    if (typeof fn !== 'function') throw new TypeError('cachette/drizzle: mutate(tables, fn) needs a function');
    const names = tableNames(tables as MutationOption['tables']);
    if (names.length === 0) throw new TypeError('cachette/drizzle: mutate(tables, fn) needs at least one table');
    return (await queryCacheOf(this).mutate(names, async () => fn())) as T;
  }

  /** Closes the cache built from `store` (and the store); a `cache` passed in is yours to close. */
  async close(): Promise<void> {
    if (this.#owned) await this.cache.close();
  }
}

/**
 * The cachette cache for `drizzle(client, { cache: cachetteCache({ store }) })`; pair the
 * database with `withFencedWrites(db)`.
 */
export function cachetteCache(options: CachetteCacheOptions): CachetteCache {
  return new CachetteCache(options);
}

function notRouted(): TypeError {
  return new TypeError('cachette/drizzle: wrap the database with withFencedWrites(db): without it Drizzle would store rows read while a write commits (docs/drizzle.md)');
}

/** Names as Drizzle's query metadata spells them: `schema.table`, or `table` in the default schema. */
function tableNames(tables: MutationOption['tables']): string[] {
  const list: unknown[] = tables === undefined ? [] : Array.isArray(tables) ? tables : [tables];
  return list.map((table) => {
    if (typeof table === 'string' && table !== '') return table;
    if (is(table, Table)) return tableName(table);
    throw new TypeError(`cachette/drizzle: a table must be a Drizzle table or its name, got ${typeof table === 'string' ? '""' : String(table)}`);
  });
}

function namesOf(tags: MutationOption['tags']): string[] {
  const list: unknown[] = tags === undefined ? [] : Array.isArray(tags) ? tags : [tags];
  return list.map((tag) => {
    if (typeof tag === 'string' && tag !== '') return tag;
    throw new TypeError(`cachette/drizzle: a tag must be a non-empty string, got ${JSON.stringify(tag)}`);
  });
}
