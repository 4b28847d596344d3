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
 * await serve(handler, { port: 3000, cache: { ttl: '30s' } });  // or: Deno.serve(cached(handler))
 * const cache = createCache({ store: await storeFromEnv() });   // fragments, store from Deno.env
 * ```
 */
import '../native/install.ts';
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type EnvLike, type StoreSelectionOptions } from '../env-store.ts';
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
  const d = (globalThis as { Deno?: DenoGlobal }).Deno;
  if (!d) throw new TypeError('cachette/deno: the Deno namespace is not available; run this under Deno (or use cachette/node)');
  return d;
}

function denoEnv(options: { env?: EnvLike; store?: unknown } | undefined): EnvLike {
  if (options?.env) return options.env;
  // A store passed in wins over every variable: the environment is not read, nor its permission needed.
  if (options?.store !== undefined) return {};
  try {
    return deno().env.toObject();
  } catch (error) {
    throw new TypeError('cachette/deno: cannot read the environment to pick a store; run with --allow-env, or pass "env" or "store"', { cause: error });
  }
}

/** Wraps a fetch-style handler in the HTTP cache, for `Deno.serve(handler)`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return cachedFor(handler, options ?? {}, 'cached() from cachette/deno');
}

/** {@link cached} under the name of the function that was called, for its errors. */
function cachedFor(handler: RequestHandler, options: ServerCacheOptions, callerName: string): ServerCachedHandler {
  return serverCache(handler, denoEnv(options), options, callerName);
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
export async function serve(handler: RequestHandler, options: DenoServeOptions = {}): Promise<DenoServer> {
  const served = servedHandler('cachette/deno', handler, options, cachedFor);
  await served.cache?.ready;
  // onListen replaces Deno's own "Listening on" line: the caller prints what runs.
  const server = deno().serve({ port: served.port, hostname: served.hostname, onListen: () => {}, onError: internalServerError }, served.fetch);
  return {
    server,
    url: serverUrl(served.hostname, server.addr.port),
    cache: served.cache,
    async close() {
      await server.shutdown();
      await served.cache?.close();
    },
  };
}

/** Options of {@link storeFromEnv}: how to pick the store, and optionally the variables to pick it from. */
export interface DenoStoreFromEnvOptions extends StoreSelectionOptions {
  /** Variables to pick the store from; default `Deno.env` (which needs `--allow-env`). */
  env?: EnvLike;
}

/**
 * The store `Deno.env` selects (CACHETTE_STORE=sqlite:PATH → sqlite, VALKEY_URL / REDIS_URL →
 * valkey, the Upstash pair → upstash, otherwise memory), announced once: for caching fragments with `createCache` rather than
 * whole responses. Without `--allow-env`, pass `env` (or build the store yourself).
 */
export function storeFromEnv(options: DenoStoreFromEnvOptions = {}): Promise<Store> {
  // denoEnv throws synchronously without --allow-env: keep it a rejection, like every other failure here.
  return Promise.resolve().then(() => openStoreFromEnv(denoEnv(options), serverStoreFactories, options, 'storeFromEnv() from cachette/deno', ['env']));
}
