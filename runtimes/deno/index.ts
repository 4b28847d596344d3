/**
 * cachette/deno: the HTTP cache for `Deno.serve`, with the store picked from `Deno.env`
 * (CACHETTE_STORE=sqlite:PATH → the embedded SQLite file through node:sqlite, which needs
 * `--allow-read --allow-write` on it; VALKEY_URL / REDIS_URL → Valkey (the valkey store),
 * UPSTASH_REDIS_REST_URL + _TOKEN → Upstash, otherwise memory). Reading the environment needs
 * `--allow-env`, or pass `env` / `store`.
 *
 * ```ts
 * import { serve, storeFromEnv } from 'cachette/deno';
 * await serve(app.fetch, { port: 3000 });                       // the app caches its own routes
 * await serve(handler, { port: 3000, cache: { ttl: '30s' } });  // or: Deno.serve(withCache(handler))
 * const cache = createCache({ store: await storeFromEnv() });   // fragments, store from Deno.env
 * ```
 */
import '../native/install.ts';
import type { Store } from '../../src/store/types.ts';
import type { EnvLike, StoreSelectionOptions } from '../shared/env-store.ts';
import type { CachedServer, RequestHandler, RunningServer, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../shared/server-cache.ts';
import { internalServerError } from '../shared/server-cache.ts';
import { serverEntry } from '../shared/server-entry.ts';

export type { RequestHandler, ServeOptions, ServerCacheOptions, ServerCachedHandler } from '../shared/server-cache.ts';

/** The slice of the Deno namespace used here, typed structurally so the package needs no Deno types. */
interface DenoServerObject {
  readonly addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}
interface DenoGlobal {
  env: { toObject(): Record<string, string> };
  serve(options: { port: number; hostname: string; onListen?: () => void; onError?: (error: unknown) => Response }, handler: (request: Request, info: unknown) => Promise<Response>): DenoServerObject;
}

function deno(): DenoGlobal {
  const namespace = (globalThis as { Deno?: DenoGlobal }).Deno;
  if (!namespace) throw new TypeError('cachette/deno: the Deno namespace is not available; run this under Deno (or use cachette/node)');
  return namespace;
}

/** Options of {@link storeFromEnv}: how to pick the store, and optionally the variables to pick it from. */
export interface DenoStoreFromEnvOptions extends StoreSelectionOptions {
  /** Variables to pick the store from; default `Deno.env` (which needs `--allow-env`). */
  env?: EnvLike;
}

const entry = serverEntry<DenoServerObject, DenoStoreFromEnvOptions>({
  name: 'cachette/deno',
  env(options) {
    if (options?.env) return options.env;
    // A store passed in wins over every variable: the environment is not read, nor its permission needed.
    if (options?.store !== undefined) return {};
    try {
      return deno().env.toObject();
    } catch (error) {
      throw new TypeError('cachette/deno: cannot read the environment to pick a store; run with --allow-env, or pass "env" or "store"', { cause: error });
    }
  },
  storeEnvOption: true,
  async listener(fetch) {
    const namespace = deno();
    return async (port, hostname) => {
      // onListen replaces Deno's own "Listening on" line: the caller prints what runs.
      const server = namespace.serve({ port, hostname, onListen: () => {}, onError: internalServerError }, fetch);
      return { server, port: server.addr.port, stop: () => server.shutdown() };
    };
  },
});

/**
 * Puts a fetch-style handler behind the HTTP cache, its store picked from `Deno.env`, for `Deno.serve(handler)`
 * (the same verb as `withCache` from cachette/http and cachette/workers).
 */
export function withCache(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return entry.withCache(handler, options);
}

/**
 * @deprecated Renamed {@link withCache}, the same function (`cached` from `cachette` is the
 * method decorator): `cached` is removed from cachette/deno in the next release. Its first call
 * says so once on the console.
 */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return entry.cached(handler, options);
}

/** Options of {@link serve}. */
export type DenoServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type DenoServer = RunningServer<DenoServerObject>;

/** A server started by {@link serve} with `cache`: its handler is behind the HTTP cache. */
export type DenoCachedServer = CachedServer<DenoServerObject>;

/**
 * Starts `Deno.serve` for `handler`; resolves once it listens (and, with `cache`, once the
 * store is open). Without `cache` the handler is served as it is: the app caches its own
 * routes (cachette/hono), or nothing is cached. With `cache: true` (or the cache's options)
 * every response goes through the HTTP cache, its store picked from `Deno.env`.
 */
export function serve(handler: RequestHandler, options: DenoServeOptions & { cache: true | ServerCacheOptions }): Promise<DenoCachedServer>;
export function serve(handler: RequestHandler, options?: DenoServeOptions): Promise<DenoServer>;
export function serve(handler: RequestHandler, options?: DenoServeOptions): Promise<DenoServer> {
  return entry.serve(handler, options);
}

/**
 * The store `Deno.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, VALKEY_URL / REDIS_URL →
 * valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache` rather than
 * whole responses. Without `--allow-env`, pass `env` (or build the store yourself).
 */
export function storeFromEnv(options?: DenoStoreFromEnvOptions): Promise<Store> {
  return entry.storeFromEnv(options);
}
