import type { StoreFactories } from './env-store.ts';
import { valkeyClient } from './valkey-client.ts';

/** Node, not Bun or Deno (which also define `process`). */
const isNode = !('Bun' in globalThis) && !('Deno' in globalThis);

/**
 * The stores a server runtime (Node, Bun, Deno) can open: Valkey over TCP, Upstash over HTTP,
 * PostgreSQL (Node), and the embedded SQLite file (better-sqlite3 on Node, bun:sqlite and node:sqlite built in on
 * Bun and Deno). Valkey goes through the valkey store's own connection (a URL needs no other
 * package: iovalkey is for a cluster or a client passed in, which the environment never
 * names), or through Bun's built-in RedisClient on Bun when that is Bun's default (see
 * valkey-client.ts). Each adapter loads only when chosen, so @upstash/redis and better-sqlite3,
 * optional peer dependencies, are needed only by those who use them.
 */
export const serverStoreFactories: StoreFactories = {
  valkey: async ({ url }) =>
    valkeyClient() === 'bun-redis' ? (await import('../../adapters/bun-redis/index.ts')).bunRedisStore(url) : (await import('../../adapters/valkey/index.ts')).valkeyStore(url),
  upstash: async ({ url, token }) => (await import('../../adapters/upstash/index.ts')).upstashStore({ url, token }),
  sqlite: async ({ path }) => (await import('../../adapters/sqlite/index.ts')).sqliteStore(path),
  // On Node only, where the PostgreSQL store is tested: on Bun and Deno a postgres:// URL in the
  // environment is refused, naming postgresStore to pass instead. `pg` is its optional peer,
  // required by the adapter when the store opens (a MissingPeerError with its install line).
  ...(isNode ? { postgres: async ({ url }: { url: string }) => (await import('../../adapters/postgres/index.ts')).postgresStore(url) } : {}),
};
