/**
 * cachette/bun: the HTTP cache for `Bun.serve`, with the store picked from the environment
 * (CACHETTE_STORE=sqlite:PATH → the embedded SQLite file through bun:sqlite; VALKEY_URL /
 * REDIS_URL → Valkey, through the valkey store by default — `bunRedisStore` from
 * cachette/adapters/bun-redis uses Bun's built-in client; UPSTASH_REDIS_REST_URL + _TOKEN →
 * Upstash; otherwise memory).
 *
 * ```ts
 * import { serve, storeFromEnv } from 'cachette/bun';
 * await serve(app.fetch, { port: 3000 });                       // the app caches its own routes
 * await serve(handler, { port: 3000, cache: { ttl: '30s' } });  // or: Bun.serve({ fetch: cached(handler) })
 * const cache = createCache({ store: await storeFromEnv() });   // fragments, store from the environment
 * ```
 */
import '../native/install.ts';
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type StoreSelectionOptions } from '../env-store.ts';
import { serverStoreFactories } from '../server-stores.ts';
import {
  internalServerError,
  serverCache,
  servedHandler,
  serverUrl,
  type CachedServer,
  type RequestHandler,
  type RunningServer,
  type ServeOptions,
  type ServerCacheOptions,
  type ServerCachedHandler,
} from '../server-cache.ts';

export type { RequestHandler, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../server-cache.ts';

/** The slice of Bun's server API used here, typed structurally so the package needs no bun-types. */
interface BunServerObject {
  readonly port: number;
  readonly hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunGlobal {
  serve(options: { port: number; hostname: string; fetch: (request: Request, server: BunServerObject) => Promise<Response>; error: (error: Error) => Response }): BunServerObject;
}

/** Wraps a fetch-style handler in the HTTP cache, for `Bun.serve({ fetch })`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return cachedFor(handler, options ?? {}, 'cached() from cachette/bun');
}

/** {@link cached} under the name of the function that was called, for its errors. */
function cachedFor(handler: RequestHandler, options: ServerCacheOptions, callerName: string): ServerCachedHandler {
  return serverCache(handler, process.env, options, callerName);
}

/** Options of {@link serve}. */
export type BunServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type BunServer = RunningServer<BunServerObject>;

/** A server started by {@link serve} with `cache`: its handler is behind the HTTP cache. */
export type BunCachedServer = CachedServer<BunServerObject>;

/**
 * Starts `Bun.serve` for `handler`; resolves once it listens (and, with `cache`, once the store
 * is open). Without `cache` the handler is served as it is: the app caches its own routes
 * (cachette/hono), or nothing is cached. With `cache: true` (or the cache's options) every
 * response goes through the HTTP cache, its store picked from the environment.
 */
export function serve(handler: RequestHandler, options: BunServeOptions & { cache: true | ServerCacheOptions }): Promise<BunCachedServer>;
export function serve(handler: RequestHandler, options?: BunServeOptions): Promise<BunServer>;
export async function serve(handler: RequestHandler, options: BunServeOptions = {}): Promise<BunServer> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new TypeError('cachette/bun: Bun.serve is not available; run this under Bun (or use cachette/node)');
  const served = servedHandler('cachette/bun', handler, options, cachedFor);
  await served.cache?.ready;
  const server = bun.serve({ port: served.port, hostname: served.hostname, fetch: served.fetch, error: internalServerError });
  return {
    server,
    url: serverUrl(served.hostname, server.port),
    cache: served.cache,
    async close() {
      await server.stop();
      await served.cache?.close();
    },
  };
}

/**
 * The store `process.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, VALKEY_URL / REDIS_URL →
 * valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache` rather
 * than whole responses. To choose the Valkey client yourself, pass `bunRedisStore(url)`
 * (cachette/adapters/bun-redis, Bun's built-in client) or `valkeyStore(url)` (cachette/adapters/valkey) to
 * `createCache` instead.
 */
export function storeFromEnv(options?: StoreSelectionOptions): Promise<Store> {
  return openStoreFromEnv(process.env, serverStoreFactories, options, 'storeFromEnv() from cachette/bun');
}
