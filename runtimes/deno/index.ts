/**
 * cachette/deno: the HTTP cache for `Deno.serve`, with the store picked from `Deno.env`
 * (VALKEY_URL / REDIS_URL → Valkey over iovalkey, UPSTASH_REDIS_REST_URL + _TOKEN → Upstash,
 * otherwise memory). Reading the environment needs `--allow-env`, or pass `env` / `store`.
 *
 * ```ts
 * import { serve, storeFromEnv } from 'cachette/deno';
 * await serve(app.fetch, { port: 3000 });          // or: Deno.serve(cached(app.fetch))
 * const cache = createCache({ store: await storeFromEnv() });
 * ```
 */
import type { Store } from '../../src/store/types.ts';
import { openStoreFromEnv, type EnvLike, type StoreSelectionOptions } from '../env-store.ts';
import { serverStoreFactories } from '../server-stores.ts';
import { serverCache, type CachedServer, type RequestHandler, type ServeOptions, type ServerCacheOptions, type ServerCachedHandler } from '../server-cache.ts';

export type { RequestHandler, ServerCacheOptions, ServerCachedHandler } from '../server-cache.ts';

/** The slice of the Deno namespace used here, typed structurally so the package needs no Deno types. */
interface DenoServer {
  readonly addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}
interface DenoGlobal {
  env: { toObject(): Record<string, string> };
  serve(options: { port: number; hostname: string; onListen?: () => void; onError?: (error: unknown) => Response }, handler: (request: Request) => Promise<Response>): DenoServer;
}

function deno(): DenoGlobal {
  const d = (globalThis as { Deno?: DenoGlobal }).Deno;
  if (!d) throw new TypeError('cachette/deno: the Deno namespace is not available; run this under Deno (or use cachette/node)');
  return d;
}

function denoEnv(options: { env?: EnvLike } | undefined): EnvLike {
  if (options?.env) return options.env;
  try {
    return deno().env.toObject();
  } catch (error) {
    throw new TypeError('cachette/deno: cannot read the environment to pick a store; run with --allow-env, or pass "env" or "store"', { cause: error });
  }
}

/** A handler that throws (and has no stale response to stand in) is a plain 500; the error goes to the log. */
function internalError(error: unknown): Response {
  console.error(error);
  return new Response('Internal Server Error', { status: 500 });
}

/** Wraps a fetch-style handler in the HTTP cache, for `Deno.serve(handler)`. */
export function cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler {
  return serverCache(handler, denoEnv(options), options);
}

/** Options of {@link serve}. */
export type DenoServeOptions = ServeOptions;

/** A server started by {@link serve}. */
export type DenoCachedServer = CachedServer<DenoServer>;

/** Starts `Deno.serve` for `handler` behind the cache; resolves once it listens and the store is open. */
export async function serve(handler: RequestHandler, options: DenoServeOptions = {}): Promise<DenoCachedServer> {
  const { port = 3000, hostname = '127.0.0.1', ...cacheOptions } = options;
  const cache = cached(handler, cacheOptions);
  await cache.ready;
  // onListen replaces Deno's own "Listening on" line: the store line already said what runs.
  const server = deno().serve({ port, hostname, onListen: () => {}, onError: internalError }, cache);
  return {
    server,
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${server.addr.port}`,
    cache,
    async close() {
      await server.shutdown();
      await cache.close();
    },
  };
}

/** Options of {@link storeFromEnv}: how to pick the store, and optionally the variables to pick it from. */
export interface DenoStoreFromEnvOptions extends StoreSelectionOptions {
  /** Variables to pick the store from; default `Deno.env` (which needs `--allow-env`). */
  env?: EnvLike;
}

/**
 * The store `Deno.env` selects (VALKEY_URL / REDIS_URL → valkey, the Upstash pair → upstash,
 * otherwise memory), announced once: for caching fragments with `createCache` rather than
 * whole responses. Without `--allow-env`, pass `env` (or build the store yourself).
 */
export function storeFromEnv(options: DenoStoreFromEnvOptions = {}): Promise<Store> {
  // denoEnv throws synchronously without --allow-env: keep it a rejection, like every other failure here.
  return Promise.resolve().then(() => openStoreFromEnv(denoEnv(options), serverStoreFactories, options));
}
