/**
 * cachette/adapters/sqlite: a persistent store in one SQLite file that every process of a
 * machine can share (a Node cluster, several Bun or Deno workers, a VPS without Redis).
 *
 * ```ts
 * import { createCache } from 'cachette';
 * import { sqliteStore } from 'cachette/adapters/sqlite';
 * const cache = createCache({ store: sqliteStore('./cache/cachette.db'), ttl: '10m' });
 * ```
 *
 * On Node it needs the optional peer dependency `better-sqlite3` (12.x); Bun and Deno use
 * their built-in `bun:sqlite` and `node:sqlite`. Nothing here is reachable from an edge entry.
 */
import { SqliteStore } from './store.ts';
import type { SqliteStoreOptions } from './options.ts';

export { SqliteStore, type SqliteUsage } from './store.ts';
export { SqliteStoreError, type SqliteErrorCode } from './errors.ts';
export type { EvictionPolicy, SqliteStoreOptions } from './options.ts';
export type { SqliteBindingName } from './binding.ts';

/**
 * Opens (creating when missing) the store at a file path, or with options. Invalid options
 * throw at once; a file that cannot be used (corrupt, locked, another program's database)
 * does not: every call then fails with a {@link SqliteStoreError}, which the cache reports as
 * a miss or a failed write plus an error event, and the store tries the file again later.
 */
export function sqliteStore(options: SqliteStoreOptions | string): SqliteStore {
  return new SqliteStore(options);
}
