/**
 * cachette/adapters/postgres: a store shared by every machine that reaches one PostgreSQL
 * database, for a fleet that runs PostgreSQL and no Redis.
 *
 * ```ts
 * import { createCache } from 'cachette';
 * import { postgresStore } from 'cachette/adapters/postgres';
 * const cache = createCache({ store: postgresStore(process.env.DATABASE_URL!), ttl: '10m' });
 * ```
 *
 * It opens a URL with the optional peer dependency `pg` (node-postgres, 8.x), or takes a `pg`
 * Pool or Client the application already has. Node only (Bun and Deno run `pg` too).
 */
import type { PostgresConnection } from './connection.ts';
import type { PostgresStoreOptions } from './options.ts';
import { PostgresStore } from './store.ts';

export { MAX_KEY_BYTES, PostgresStore } from './store.ts';
export type { PostgresStoreOptions } from './options.ts';
export type { PgQueryable, PgQueryConfig, PostgresConnection } from './connection.ts';

/**
 * Opens the store on a `postgres://` URL, a `pg` Pool or Client, or options. Invalid options
 * throw at once; a database that cannot be reached does not: every call then rejects with a
 * StoreUnavailableError naming the store and its address (never its password), which the cache
 * reports as a miss or a failed write, and the next call tries again.
 */
export function postgresStore(options: PostgresStoreOptions | PostgresConnection | string): PostgresStore {
  return new PostgresStore(options);
}
