import type { StoreFactories } from './env-store.ts';

/**
 * The stores a server runtime (Node, Bun, Deno) can open: Valkey over TCP through iovalkey and
 * Upstash over HTTP. Each adapter loads only when chosen, so iovalkey, an optional peer
 * dependency, is needed only by those who use Valkey.
 */
export const serverStoreFactories: StoreFactories = {
  valkey: async ({ url }) => (await import('../adapters/valkey/index.ts')).valkeyStore(url),
  upstash: async ({ url, token }) => (await import('../adapters/upstash/index.ts')).upstashStore({ url, token }),
};
