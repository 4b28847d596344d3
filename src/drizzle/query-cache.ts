/**
 * Drizzle's queries on the cachette engine: a cached select is one `getOrSet` tagged by the
 * tables it reads (the tags' generations are read before the query runs, and concurrent
 * identical selects share one database query, in this process and, through the fill lease,
 * across processes); a write is a fence (`beginWrite` before the statement, `commit` after it
 * committed) on the tags of the tables it writes. A store that fails never fails a query: the
 * database answers, and the cache's `error` event says what happened.
 */
import type { Cache } from '../cache/types.ts';
import { MAX_TAGS } from '../cache/tags/tag-keys.ts';
import type { QueryCacheConfig } from './drizzle-internals.ts';
import { plainResult } from './plain-result.ts';
import { queryKey } from './query-key.ts';
import { queryTtlMs } from './query-ttl.ts';
import type { Fencer, HeldFence, TransactionScope } from './transaction-scope.ts';

/** Runs the statement as Drizzle runs an uncached one (its errors are DrizzleQueryErrors). */
export type RunQuery = () => Promise<unknown>;

/** The database's own failure, carried through `getOrSet` so that every caller sharing the query rethrows it. */
class QueryFailure {
  constructor(readonly cause: unknown) {}
}

/** One select as the engine caches it. */
export interface CachedRead {
  queryString: string;
  params: unknown[];
  tables: readonly string[];
  config: QueryCacheConfig;
}

/** Keys and tags of one cachette/drizzle cache, and what it does with queries. */
export class QueryCache implements Fencer {
  /** For each `mutate` running, the transactions that ran a statement meanwhile. */
  readonly #mutating = new Set<Set<TransactionScope>>();

  constructor(
    readonly cache: Cache,
    private readonly namespace: string,
    private readonly ttlMs: number | undefined,
  ) {}

  /** The tag of a table (as Drizzle names it: `schema.table`, or `table` in the default schema). */
  tableTag(table: string): string {
    return `${this.namespace}:table:${table}`;
  }

  /** The tag of a `$withCache({ tag })` name. */
  customTag(tag: string): string {
    return `${this.namespace}:tag:${tag}`;
  }

  /** The result of a cached select: from the cache, or from the database and stored. */
  async read(read: CachedRead, run: RunQuery): Promise<unknown> {
    const { config } = read;
    const ttl = queryTtlMs(config.config, Date.now()) ?? this.ttlMs;
    const tags = config.autoInvalidate === false ? [] : read.tables.map((table) => this.tableTag(table));
    if (config.tag !== undefined) tags.push(this.customTag(config.tag));
    // An entry already expired, or naming more tags than one entry records: not cached.
    if ((ttl !== undefined && ttl <= 0) || tags.length > MAX_TAGS) return run();
    let produced: { value: unknown } | undefined;
    let key: string | undefined;
    try {
      // As Drizzle keys them: a named query (`tag`) is one entry, others their SQL and parameters
      // (query-key.ts; a parameter with no stable encoding throws here: the query runs uncached).
      key = config.tag !== undefined ? `${this.namespace}:named:${config.tag}` : queryKey(this.namespace, read.queryString, read.params);
      return await this.cache.getOrSet(
        key,
        async () => {
          let value: unknown;
          try {
            value = plainResult(await run());
          } catch (error) {
            throw new QueryFailure(error);
          }
          produced = { value };
          return value;
        },
        { tags, ...(ttl === undefined ? {} : { ttl }) },
      );
    } catch (error) {
      if (error instanceof QueryFailure) throw error.cause;
      if (key === undefined) this.cache.events.emit('error', { source: 'encode', operation: 'drizzle query key', keys: [], error });
      // The cache failed (a parameter the key cannot encode, a strict cache's store error, a
      // value its serializer cannot encode, a factory timeout): the result already read is
      // served, else the database answers.
      return produced ? produced.value : run();
    }
  }

  /** A write outside any transaction: fenced from before the statement until after it committed. */
  async write(tables: readonly string[], run: RunQuery): Promise<unknown> {
    const fence = await this.begin(tables.map((table) => this.tableTag(table)));
    try {
      return await run();
    } finally {
      // Also when the statement failed: it may have committed before the error reached us.
      await this.end(fence);
    }
  }

  /**
   * `cache.mutate(tables, fn)`: `run` (a write Drizzle cannot see) fenced on `tables`. Outside a
   * transaction, the fence is committed once `run` settled, as {@link write} commits it. When
   * `run` ran statements inside a routed transaction (`tx.execute(…)`), its write commits with
   * that transaction, so the fence is handed to it and committed after its COMMIT: committed
   * when `run` returned, a reader elsewhere would store the rows of before the COMMIT.
   */
  async mutate(tables: readonly string[], run: RunQuery): Promise<unknown> {
    const held = await this.begin(tables.map((table) => this.tableTag(table)));
    const scopes = new Set<TransactionScope>();
    this.#mutating.add(scopes);
    try {
      return await run();
    } finally {
      this.#mutating.delete(scopes);
      const live = [...scopes].filter((scope) => scope.live);
      if (live.length === 0) await this.end(held);
      else {
        const fence = { held, waiting: live.length };
        for (const scope of live) scope.adopt(fence);
      }
    }
  }

  /** Notes that a statement runs inside `scope`'s transaction, for the `mutate` calls running now. */
  ranIn(scope: TransactionScope): void {
    for (const scopes of this.#mutating) scopes.add(scope);
  }

  /** Takes the write leases on `tags` and bumps them (in slices of what one call takes). */
  async begin(tags: readonly string[]): Promise<HeldFence> {
    const slices = slicesOf(tags);
    const fences = await Promise.all(
      slices.map((slice) =>
        // A strict cache whose store is down refuses: the write goes on, and `end` invalidates.
        this.cache.beginWrite(slice).catch(() => undefined),
      ),
    );
    return { slices, fences };
  }

  /** Commits what `begin` took (bumps again, releases); invalidates the slices it could not take. */
  async end(held: HeldFence): Promise<void> {
    await Promise.all(
      held.slices.map((slice, i) => {
        const fence = held.fences[i];
        // Failures are reported by the cache's `error` event; a write never fails because the cache did.
        return (fence ? fence.commit() : this.cache.invalidateTags(slice)).catch(() => undefined);
      }),
    );
  }

  /** Invalidates tables and named queries at once (`db.$cache.invalidate`). */
  async invalidate(tables: readonly string[], tags: readonly string[]): Promise<void> {
    const all = [...tables.map((table) => this.tableTag(table)), ...tags.map((tag) => this.customTag(tag))];
    await Promise.all(slicesOf(all).map((slice) => this.cache.invalidateTags(slice).catch(() => undefined)));
  }
}

/** `tags` in slices of at most {@link MAX_TAGS}, the most one engine call takes. */
function slicesOf(tags: readonly string[]): Array<readonly string[]> {
  const slices: Array<readonly string[]> = [];
  for (let at = 0; at < tags.length; at += MAX_TAGS) slices.push(tags.slice(at, at + MAX_TAGS));
  return slices;
}
