/**
 * `withFencedWrites(db)`: routes every query of a Drizzle database through cachette. Drizzle
 * alone calls its cache's `onMutate` beside the write (0.44, 0.45) or after it (1.0), and
 * nowhere around a transaction's COMMIT, so no `Cache` implementation can keep a read that
 * races a write from storing the old rows (drizzle-orm #5828, #4580). This takes the one place
 * where Drizzle decides, per execution, what to do with the cache (`queryWithCache`, see
 * drizzle-internals.ts), on every prepared query of the database and of its transactions:
 *
 * - a write takes the write leases of the tables it writes before its statement is sent, and
 *   commits them once the statement returned, or, inside a transaction, once the transaction
 *   ended (COMMIT or rollback);
 * - a cached select is one `getOrSet` (tags read before the query, concurrent identical
 *   queries coalesced);
 * - inside a transaction, selects go to the database: they must see the transaction's own
 *   writes and snapshot, which no shared cache holds, and what they read may never commit.
 */
import { CachetteCache, queryCacheOf } from './drizzle-cache.ts';
import {
  asPreparedQuery,
  batchWrittenTables,
  builtSql,
  cachedSelect,
  recordBuiltSql,
  sessionOf,
  writtenTables,
  type DatabaseInternals,
  type PreparedQueryInternals,
  type SessionInternals,
} from './drizzle-internals.ts';
import type { QueryCache } from './query-cache.ts';
import { TransactionScope } from './transaction-scope.ts';

/** Where a session's statements belong: the transaction in progress on it, if any. */
type ScopeOf = () => TransactionScope | undefined;

/** The sessions already routed, each with where its statements belong now. */
const routed = new WeakMap<SessionInternals, { scopeOf: ScopeOf }>();

/**
 * Makes `db` (from `drizzle(client, { cache: cachetteCache(…) })`) send its queries through
 * the cache with fenced writes, and returns it. Required: without it the cache refuses to
 * serve (Drizzle's own path would store rows read while a write commits). Applying it twice is
 * harmless. Throws a TypeError for a database without a cachette cache, and for the
 * synchronous SQLite drivers (better-sqlite3, bun:sqlite, …), which never consult a cache.
 */
export function withFencedWrites<Database extends object>(db: Database): Database {
  const internals = db as DatabaseInternals;
  if (internals.resultKind === 'sync') {
    throw new TypeError('cachette/drizzle: this database uses a synchronous SQLite driver (better-sqlite3, bun:sqlite, …), on which Drizzle never consults a cache; use an asynchronous driver');
  }
  if (!(internals.$cache instanceof CachetteCache)) {
    throw new TypeError('cachette/drizzle: withFencedWrites(db) needs a database created with drizzle(client, { cache: cachetteCache(…) })');
  }
  const session = sessionOf(db);
  if (!session) throw new TypeError('cachette/drizzle: withFencedWrites(db): this Drizzle database has no session to route (an unsupported drizzle-orm version?)');
  if (routed.has(session)) return db;
  const dialect = internals.dialect;
  if (typeof dialect?.sqlToQuery !== 'function')
    throw new TypeError('cachette/drizzle: withFencedWrites(db): this Drizzle database has no dialect to read its queries from (an unsupported drizzle-orm version?)');
  recordBuiltSql(dialect);
  const cache = queryCacheOf(internals.$cache);
  // Transactions that run on the database's own session (one connection, sqlite-proxy) share
  // one scope, ended when the last of them ends: their statements cannot be told apart.
  let shared: { scope: TransactionScope; open: number } | undefined;
  routeSession(session, cache, () => shared?.scope);

  const transaction = session.transaction;
  if (typeof transaction === 'function') {
    session.transaction = function (this: unknown, fn: (tx: unknown) => unknown, config?: unknown): Promise<unknown> {
      let own: TransactionScope | undefined;
      let joined: typeof shared;
      const inside = (tx: unknown) => {
        const txSession = sessionOf(tx);
        if (txSession && txSession !== session) {
          const scope = new TransactionScope(cache);
          own = scope;
          routeSession(txSession, cache, () => (scope.live ? scope : undefined));
        } else {
          shared ??= { scope: new TransactionScope(cache), open: 0 };
          shared.open++;
          joined = shared;
        }
        return fn(tx);
      };
      const ended = async (): Promise<void> => {
        await own?.end();
        if (joined && --joined.open === 0) {
          if (shared === joined) shared = undefined;
          await joined.scope.end();
        }
      };
      return new Promise<unknown>((resolve) => resolve(transaction.call(this, inside, config))).then(
        async (value) => {
          await ended();
          return value;
        },
        async (error: unknown) => {
          await ended();
          throw error;
        },
      );
    };
  }

  const batch = session.batch;
  if (typeof batch === 'function') {
    // A batch runs its statements without `queryWithCache` (Drizzle neither reads the cache
    // nor invalidates for them); the drivers that batch apply one atomically.
    session.batch = async function (this: unknown, queries: readonly unknown[]): Promise<unknown> {
      const tables = batchWrittenTables(queries);
      const run = () => batch.call(this, queries) as Promise<unknown>;
      if (tables.length === 0) return run();
      const scope = shared?.scope;
      if (!scope) return cache.write(tables, run);
      await scope.fence(tables);
      return run();
    };
  }
  return db;
}

/** Routes every query `session` prepares from now on; `scopeOf` says where its statements belong. */
function routeSession(session: SessionInternals, cache: QueryCache, scopeOf: ScopeOf): void {
  const known = routed.get(session);
  if (known) {
    // A session the driver hands out again (for another transaction): only its scope changes.
    known.scopeOf = scopeOf;
    return;
  }
  const state = { scopeOf };
  routed.set(session, state);
  const prepare = session.prepareQuery;
  session.prepareQuery = function (this: unknown, ...args: unknown[]): unknown {
    const prepared = prepare.apply(this, args);
    const query = asPreparedQuery(prepared);
    if (query) routeQuery(query, cache, () => state.scopeOf(), builtSql(args[0]));
    return prepared;
  };
}

/** Replaces one prepared query's `queryWithCache` with cachette's routing; `sql` is the SQL object it was built from. */
function routeQuery(prepared: PreparedQueryInternals, cache: QueryCache, scopeOf: ScopeOf, sql: unknown): void {
  const original = prepared.queryWithCache;
  // The prepared query without a cache: Drizzle's original runs the statement as it runs an
  // uncached one, with its own error wrapping (DrizzleQueryError), in every version.
  const uncached = Object.create(prepared, { cache: { value: undefined } }) as PreparedQueryInternals;
  prepared.queryWithCache = (queryString, params, query) => {
    const run = () => original.call(uncached, queryString, params, query);
    const scope = scopeOf();
    // A `mutate` running now whose statements run in a transaction commits with it (query-cache.ts).
    if (scope) cache.ranIn(scope);
    const written = writtenTables(prepared);
    if (written.length > 0) return scope ? scope.fence(written).then(run) : cache.write(written, run);
    const select = scope ? undefined : cachedSelect(prepared, sql);
    return select ? cache.read({ queryString, params, ...select }, run) : run();
  };
}
