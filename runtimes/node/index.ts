/**
 * cachette/node: a `node:http` server for a fetch handler, the HTTP cache for `node:http` and
 * `@hono/node-server` (an optional peer, loaded only by `serve` and `requestListener`, so an
 * Express app that needs only `storeFromEnv` does not install it), and the store picked from
 * `process.env` (CACHETTE_STORE=sqlite:PATH →
 * the embedded SQLite file through better-sqlite3, CACHETTE_STORE=postgres://… → PostgreSQL through pg, VALKEY_URL / REDIS_URL → Valkey over
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
import type { StoreSelectionOptions } from '../shared/env-store.ts';
import type { CachedServer, RequestHandler, RunningServer, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../shared/server-cache.ts';
import { serverEntry } from '../shared/server-entry.ts';
import { loadNodeListener, nodeListener } from './node-listener.ts';

export type { RequestHandler, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../shared/server-cache.ts';

const entry = serverEntry<Server>({
  name: 'cachette/node',
  env: () => process.env,
  async listener(fetch, callerName) {
    const listener = await loadNodeListener(fetch, callerName);
    return async (port, hostname) => {
      const server = createServer(listener);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, hostname, () => resolve()));
      return {
        server,
        port: (server.address() as AddressInfo).port,
        stop: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      };
    };
  },
});

/**
 * Puts a fetch-style handler behind the HTTP cache, its store picked from `process.env`, pass the result to `@hono/node-server`'s `serve({ fetch })`
 * (the same verb as `withCache` from cachette/http and cachette/workers).
 */
export function withCache(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return entry.withCache(handler, options);
}

/**
 * @deprecated Renamed {@link withCache}, the same function (`cached` from `cachette` is the
 * method decorator): `cached` is removed from cachette/node in the next release. Its first call
 * says so once on the console.
 */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return entry.cached(handler, options);
}

/**
 * A `node:http` request listener serving `handler` through the cache, for a server you create.
 * It translates with `@hono/node-server` (an optional peer: `npm install @hono/node-server`).
 */
export function requestListener(handler: RequestHandler, options?: ServerCacheOptions): RequestListener & { cache: ServerCachedHandler } {
  const cache = entry.cachedFor(handler, options ?? {}, 'requestListener() from cachette/node');
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
export function serve(handler: RequestHandler, options?: NodeServeOptions): Promise<NodeServer> {
  return entry.serve(handler, options);
}

/**
 * The store `process.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, CACHETTE_STORE=postgres://… → postgres, VALKEY_URL /
 * REDIS_URL → valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache`
 * rather than whole responses.
 */
export function storeFromEnv(options?: StoreSelectionOptions): Promise<Store> {
  return entry.storeFromEnv(options);
}

export { zlibCompressor } from './zlib-compressor.ts';
export type { ZlibCompressorOptions } from './zlib-compressor.ts';
