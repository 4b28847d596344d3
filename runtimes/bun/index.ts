/**
 * cachette/bun: the HTTP cache for `Bun.serve`, with the store picked from the environment
 * (VALKEY_URL / REDIS_URL → Valkey, through iovalkey by default — `bunRedisStore` from
 * cachette/adapters/bun-redis uses Bun's built-in client; UPSTASH_REDIS_REST_URL + _TOKEN →
 * Upstash; otherwise memory).
 *
 * ```ts
 * import { serve, storeFromEnv } from 'cachette/bun';
 * serve(app.fetch, { port: 3000 });                // or: Bun.serve({ fetch: cached(app.fetch) })
 * const cache = createCache({ store: await storeFromEnv() });
 * ```
 */
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type StoreSelectionOptions } from '../env-store.ts';
import { serverStoreFactories } from '../server-stores.ts';
import { serverCache, type CachedServer, type RequestHandler, type ServeOptions, type ServerCacheOptions, type ServerCachedHandler } from '../server-cache.ts';

export type { RequestHandler, ServerCacheOptions, ServerCachedHandler } from '../server-cache.ts';

/** The slice of Bun's server API used here, typed structurally so the package needs no bun-types. */
interface BunServer {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunGlobal {
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response>; error: (error: Error) => Response }): BunServer;
}

/**
 * A handler that throws (and has no stale response to stand in) is a plain 500, as on
 * node:http, not Bun's development error page; the error goes to the log.
 */
function internalError(error: Error): Response {
  console.error(error);
  return new Response('Internal Server Error', { status: 500 });
}

/** Wraps a fetch-style handler in the HTTP cache, for `Bun.serve({ fetch })`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return serverCache(handler, process.env, options);
}

/** Options of {@link serve}. */
export type BunServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type BunCachedServer = CachedServer<BunServer>;

/** Starts `Bun.serve` for `handler` behind the cache; resolves once it listens and the store is open. */
export async function serve(handler: RequestHandler, options: BunServeOptions = {}): Promise<BunCachedServer> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new TypeError('cachette/bun: Bun.serve is not available; run this under Bun (or use cachette/node)');
  const { port = 3000, hostname = '127.0.0.1', ...cacheOptions } = options;
  const cache = cached(handler, cacheOptions);
  await cache.ready;
  const server = bun.serve({ port, hostname, fetch: cache, error: internalError });
  return {
    server,
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${server.port}`,
    cache,
    async close() {
      await server.stop();
      await cache.close();
    },
  };
}

/**
 * The store `process.env` selects (VALKEY_URL / REDIS_URL → valkey, the Upstash pair →
 * upstash, otherwise memory), announced once: for caching fragments with `createCache` rather
 * than whole responses. To choose the Valkey client yourself, pass `bunRedisStore(url)`
 * (cachette/adapters/bun-redis, Bun's built-in client) or `valkeyStore(url)` (iovalkey) to
 * `createCache` instead.
 */
export function storeFromEnv(options?: StoreSelectionOptions): Promise<Store> {
  return openStoreFromEnv(process.env, serverStoreFactories, options);
}
