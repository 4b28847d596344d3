/**
 * cachette/node: a `node:http` server for a fetch handler, the HTTP cache for `node:http` and
 * `@hono/node-server` (an optional peer, loaded only by `serve` and `requestListener`, so an
 * Express app that needs only `storeFromEnv` does not install it), and the store picked from
 * `process.env` (CACHETTE_STORE=sqlite:PATH →
 * the embedded SQLite file through better-sqlite3, VALKEY_URL / REDIS_URL → Valkey over
 * iovalkey, UPSTASH_REDIS_REST_URL + _TOKEN → Upstash, otherwise memory).
 *
 * ```ts
 * import { serve } from 'cachette/node';
 * await serve(app.fetch, { port: 3000 });                          // the app caches its own routes
 * await serve(handler, { port: 3000, cache: { ttl: '30s' } });     // or: everything behind the cache
 * ```
 */
import '../native/install.ts';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type StoreSelectionOptions } from '../env-store.ts';
import {
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
import { serverStoreFactories } from '../server-stores.ts';
import { loadNodeListener, nodeListener } from './node-listener.ts';

export type { RequestHandler, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../server-cache.ts';

/** Wraps a fetch-style handler in the HTTP cache; pass the result to `@hono/node-server`'s `serve({ fetch })`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return cachedFor(handler, options ?? {}, 'cached() from cachette/node');
}

/** {@link cached} under the name of the function that was called, for its errors. */
function cachedFor(handler: RequestHandler, options: ServerCacheOptions, callerName: string): ServerCachedHandler {
  return serverCache(handler, process.env, options, callerName);
}

/**
 * A `node:http` request listener serving `handler` through the cache, for a server you create.
 * It translates with `@hono/node-server` (an optional peer: `npm install @hono/node-server`).
 */
export function requestListener(handler: RequestHandler, options?: ServerCacheOptions): RequestListener & { cache: ServerCachedHandler } {
  const cache = cachedFor(handler, options ?? {}, 'requestListener() from cachette/node');
  return Object.assign(nodeListener(cache, 'requestListener() from cachette/node'), { cache });
}

/** Options of {@link serve}. */
export type NodeServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type NodeServer = RunningServer<Server>;

/** A server started by {@link serve} with `cache`: its handler is behind the HTTP cache. */
export type NodeCachedServer = CachedServer<Server>;

/**
 * Starts a `node:http` server for `handler`; resolves once it listens (and, with `cache`, once
 * the store is open). Without `cache` the handler is served as it is: the app caches its own
 * routes (cachette/hono, cachette/express), or nothing is cached. With `cache: true` (or the
 * cache's options) every response goes through the HTTP cache, its store picked from
 * `process.env`.
 */
export function serve(handler: RequestHandler, options: NodeServeOptions & { cache: true | ServerCacheOptions }): Promise<NodeCachedServer>;
export function serve(handler: RequestHandler, options?: NodeServeOptions): Promise<NodeServer>;
export async function serve(handler: RequestHandler, options: NodeServeOptions = {}): Promise<NodeServer> {
  const served = servedHandler('cachette/node', handler, options, cachedFor);
  const listener = await loadNodeListener(served.fetch, 'serve() from cachette/node');
  await served.cache?.ready;
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(served.port, served.hostname, () => resolve()));
  return {
    server,
    url: serverUrl(served.hostname, (server.address() as AddressInfo).port),
    cache: served.cache,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await served.cache?.close();
    },
  };
}

/**
 * The store `process.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, VALKEY_URL /
 * REDIS_URL → valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache`
 * rather than whole responses.
 */
export function storeFromEnv(options?: StoreSelectionOptions): Promise<Store> {
  return openStoreFromEnv(process.env, serverStoreFactories, options, 'storeFromEnv() from cachette/node');
}

export { zlibCompressor } from './zlib-compressor.ts';
export type { ZlibCompressorOptions } from './zlib-compressor.ts';
