/**
 * The few parts of Drizzle's internals that cachette/drizzle reads, described structurally.
 *
 * Drizzle offers a cache one public hook per query (`get`/`put`, and `onMutate` run beside the
 * write), none before a write reaches the database and none after a transaction commits. The
 * place where it decides, for one execution, whether to read the cache, run the statement or
 * invalidate is one method of every prepared query of an asynchronous driver,
 * `queryWithCache(queryString, params, query)`, where `query()` runs the statement. Every
 * query comes from `session.prepareQuery(…)`, and every transaction from
 * `session.transaction(fn, config)`. These shapes are the same in drizzle-orm 0.44 and 0.45
 * (and 1.0's release candidates, where `tables` became a function and `enable` `enabled`).
 */
import type { CacheConfig } from 'drizzle-orm/cache/core/types';
import { tablesInSql } from './sql-tables.ts';

/** What a prepared query says about itself: its kind and the tables it reads or writes. */
export interface QueryMetadata {
  type: 'select' | 'insert' | 'update' | 'delete';
  tables: readonly string[] | (() => readonly string[]);
}

/** `$withCache()` as the prepared query resolved it (undefined there when caching is off for it). */
export interface QueryCacheConfig {
  enable?: boolean;
  enabled?: boolean;
  tag?: string;
  autoInvalidate?: boolean;
  config?: CacheConfig;
}

/** Runs one execution of a prepared query through (or around) the cache. */
export type QueryWithCache = (queryString: string, params: unknown[], query: () => Promise<unknown>) => Promise<unknown>;

/** A prepared query of an asynchronous driver. */
export interface PreparedQueryInternals {
  queryWithCache: QueryWithCache;
  queryMetadata?: QueryMetadata;
  cacheConfig?: QueryCacheConfig;
  cache?: unknown;
}

/** A driver's session, where every query and transaction of a database starts. */
export interface SessionInternals {
  prepareQuery(...args: unknown[]): unknown;
  transaction?(fn: (tx: unknown) => unknown, config?: unknown): unknown;
  batch?(queries: readonly unknown[]): unknown;
}

/** A database's dialect: where every statement's SQL object becomes the text and parameters a driver sends. */
export interface DialectInternals {
  sqlToQuery(sql: unknown, ...rest: unknown[]): unknown;
}

/** A Drizzle database or transaction object. */
export interface DatabaseInternals {
  session?: SessionInternals;
  dialect?: DialectInternals;
  _?: { session?: SessionInternals };
  $cache?: unknown;
  /** SQLite databases: `sync` for drivers that never consult the cache (better-sqlite3, bun:sqlite, …). */
  resultKind?: string;
}

/** A query builder handed to `db.batch([...])`. */
interface BatchItem {
  _prepare?(): unknown;
}

/** The session of a database or transaction object, or undefined when it has none. */
export function sessionOf(db: unknown): SessionInternals | undefined {
  if (typeof db !== 'object' || db === null) return undefined;
  const { session, _: meta } = db as DatabaseInternals;
  const found = session ?? meta?.session;
  return typeof found?.prepareQuery === 'function' ? found : undefined;
}

/** The prepared query inside `value` when it is one an asynchronous driver runs through the cache. */
export function asPreparedQuery(value: unknown): PreparedQueryInternals | undefined {
  return typeof value === 'object' && value !== null && typeof (value as PreparedQueryInternals).queryWithCache === 'function' ? (value as PreparedQueryInternals) : undefined;
}

/** The tables named by a query's metadata. */
export function tablesOf(metadata: QueryMetadata): readonly string[] {
  const tables = typeof metadata.tables === 'function' ? metadata.tables() : metadata.tables;
  return Array.isArray(tables) ? tables.filter((name): name is string => typeof name === 'string' && name.length > 0) : [];
}

/** The tables a write query writes, or an empty list when it is not a write (or names none). */
export function writtenTables(prepared: PreparedQueryInternals): readonly string[] {
  const metadata = prepared.queryMetadata;
  if (metadata === undefined || metadata.type === 'select') return [];
  return tablesOf(metadata);
}

/** The dialects whose statements are recorded by {@link recordBuiltSql}. */
const recording = new WeakSet<DialectInternals>();
/** Each statement's query (what `session.prepareQuery` is given) to the SQL object it was built from. */
const builtFrom = new WeakMap<object, unknown>();

/**
 * Remembers, for every statement `dialect` turns into text from now on, the SQL object it was
 * built from: `session.prepareQuery` is handed only the text and parameters, and the tables a
 * select reads are found in the SQL (sql-tables.ts). Every select builder of every dialect
 * calls `dialect.sqlToQuery(this.getSQL())` and passes the result to `prepareQuery`.
 */
export function recordBuiltSql(dialect: DialectInternals): void {
  if (recording.has(dialect)) return;
  recording.add(dialect);
  const toQuery = dialect.sqlToQuery;
  dialect.sqlToQuery = function (this: unknown, sql: unknown, ...rest: unknown[]): unknown {
    const query = toQuery.call(this, sql, ...rest);
    if (typeof query === 'object' && query !== null) builtFrom.set(query, sql);
    return query;
  };
}

/** The SQL object `query` (a `prepareQuery` argument) was built from, when {@link recordBuiltSql} saw it. */
export function builtSql(query: unknown): unknown {
  return typeof query === 'object' && query !== null ? builtFrom.get(query) : undefined;
}

/**
 * The cache settings of a select and every table it reads (its metadata's and those of the
 * subqueries, views and CTEs in `sql`, the SQL object it was built from), or undefined when this
 * execution must not use the cache: not a cached select, or one that reads a relation whose
 * tables cannot be named (sql-tables.ts), or whose SQL was not seen.
 */
export function cachedSelect(prepared: PreparedQueryInternals, sql: unknown): { config: QueryCacheConfig; tables: readonly string[] } | undefined {
  const { queryMetadata: metadata, cacheConfig: config } = prepared;
  if (metadata?.type !== 'select' || config === undefined) return undefined;
  // The prepared query already dropped a disabled config; an explicit false still means off.
  if (config.enable === false || config.enabled === false) return undefined;
  if (sql === undefined) return undefined;
  let read: ReturnType<typeof tablesInSql>;
  try {
    read = tablesInSql(sql);
  } catch {
    // A shape of Drizzle's SQL this does not know: its tables are not known either.
    return undefined;
  }
  if (!read.known) return undefined;
  return { config, tables: [...new Set([...tablesOf(metadata), ...read.tables])] };
}

/** Every table the queries of a batch write, read from their prepared forms. */
export function batchWrittenTables(queries: readonly unknown[]): readonly string[] {
  const tables = new Set<string>();
  for (const query of queries) {
    const prepare = (query as BatchItem | null)?._prepare;
    if (typeof prepare !== 'function') continue;
    const prepared = asPreparedQuery(prepare.call(query));
    if (prepared) for (const table of writtenTables(prepared)) tables.add(table);
  }
  return [...tables];
}
