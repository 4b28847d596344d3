/**
 * cachette/node: the HTTP cache for `node:http` and `@hono/node-server`, with the store picked
 * from `process.env` (CACHETTE_STORE=sqlite:PATH → the embedded SQLite file through
 * better-sqlite3, VALKEY_URL / REDIS_URL → Valkey over iovalkey, UPSTASH_REDIS_REST_URL +
 * _TOKEN → Upstash, otherwise memory).
 *
 * ```ts
 * import { serve } from 'cachette/node';
 * const { url } = await serve(app.fetch, { port: 3000 });
 * ```
 */
import '../native/install.ts';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type StoreSelectionOptions } from '../env-store.ts';
import { serverCache, type CachedServer, type RequestHandler, type ServeOptions, type ServerCacheOptions, type ServerCachedHandler } from '../server-cache.ts';
import { serverStoreFactories } from '../server-stores.ts';

export type { RequestHandler, ServerCacheOptions, ServerCachedHandler } from '../server-cache.ts';

/** Wraps a fetch-style handler in the HTTP cache; pass the result to `@hono/node-server`'s `serve({ fetch })`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return serverCache(handler, process.env, options);
}

/** A `node:http` request listener serving `handler` through the cache, for a server you create. */
export function requestListener(handler: RequestHandler, options?: ServerCacheOptions): RequestListener & { cache: ServerCachedHandler } {
  const cache = cached(handler, options);
  return Object.assign(getRequestListener(cache), { cache });
}

/** Options of {@link serve}. */
export type NodeServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type NodeCachedServer = CachedServer<Server>;

/** Starts a `node:http` server for `handler` behind the cache; resolves once it listens and the store is open. */
export async function serve(handler: RequestHandler, options: NodeServeOptions = {}): Promise<NodeCachedServer> {
  const { port = 3000, hostname = '127.0.0.1', ...cacheOptions } = options;
  const listener = requestListener(handler, cacheOptions);
  await listener.cache.ready;
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, hostname, () => resolve()));
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${address.port}`,
    cache: listener.cache,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await listener.cache.close();
    },
  };
}

/**
 * The store `process.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, VALKEY_URL /
 * REDIS_URL → valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache`
 * rather than whole responses.
 */
export function storeFromEnv(options?: StoreSelectionOptions): Promise<Store> {
  return openStoreFromEnv(process.env, serverStoreFactories, options);
}

export { zlibCompressor } from './zlib-compressor.ts';
export type { ZlibCompressorOptions } from './zlib-compressor.ts';
