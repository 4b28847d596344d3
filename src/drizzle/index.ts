/**
 * cachette/drizzle: a query cache for Drizzle ORM with fenced writes. Give
 * `cachetteCache({ store })` to `drizzle(client, { cache })` and wrap the database with
 * `withFencedWrites(db)`: cached selects are tagged by the tables they read and coalesced, and
 * every write (inside transactions too) is fenced, so that a read racing it is never stored.
 * Runtime-neutral: imports drizzle-orm (an optional peer) and no store client.
 */
export { CachetteCache, cachetteCache } from './drizzle-cache.ts';
export type { CachetteCacheOptions, TableRef } from './drizzle-cache.ts';
export { withFencedWrites } from './fenced-writes.ts';
