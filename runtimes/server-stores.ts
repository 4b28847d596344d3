import { bunRedisClientClass } from '../adapters/bun-redis/client.ts';
import type { StoreFactories } from './env-store.ts';

/**
 * The stores a server runtime (Node, Bun, Deno) can open: Valkey over TCP and Upstash over
 * HTTP. Valkey goes through iovalkey on Node and Deno, and through Bun's built-in RedisClient
 * on Bun, where the full-stack bench (bench/FULLSTACK.md) measured it faster. Each adapter
 * loads only when chosen, so iovalkey, an optional peer dependency, is needed only by those
 * who use Valkey off Bun.
 */
export const serverStoreFactories: StoreFactories = {
  valkey: async ({ url }) => bunRedisClientClass()
    ? (await import('../adapters/bun-redis/index.ts')).bunRedisStore(url)
    : (await import('../adapters/valkey/index.ts')).valkeyStore(url),
  upstash: async ({ url, token }) => (await import('../adapters/upstash/index.ts')).upstashStore({ url, token }),
};
