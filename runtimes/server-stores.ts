import type { StoreFactories } from './env-store.ts';

/**
 * The stores a server runtime (Node, Bun, Deno) can open: Valkey over TCP through iovalkey,
 * Upstash over HTTP, and the embedded SQLite file (better-sqlite3 on Node, bun:sqlite and
 * node:sqlite built in on Bun and Deno). Each adapter loads only when chosen, so iovalkey and
 * better-sqlite3, optional peer dependencies, are needed only by those who use them.
 */
export const serverStoreFactories: StoreFactories = {
  valkey: async ({ url }) => (await import('../adapters/valkey/index.ts')).valkeyStore(url),
  upstash: async ({ url, token }) => (await import('../adapters/upstash/index.ts')).upstashStore({ url, token }),
  sqlite: async ({ path }) => (await import('../adapters/sqlite/index.ts')).sqliteStore(path),
};
