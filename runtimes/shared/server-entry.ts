/**
 * What cachette/node, cachette/bun and cachette/deno have in common, built once: `withCache`,
 * its deprecated name `cached`, `serve` and `storeFromEnv`. A platform's entry gives only what
 * differs (where its environment is, and how its server listens) and exports the result under
 * its own JSDoc (docs/architecture.md#where-new-code-goes: a runtime).
 */
import type { Store } from '../../src/store/types.ts';
import { announceDeprecation } from '../../src/util/deprecation.ts';
import { openStoreFromEnv, type EnvLike, type StoreSelectionOptions } from './env-store.ts';
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
} from './server-cache.ts';
import { serverStoreFactories } from './server-stores.ts';

/** A platform's server once it listens: its own server object, the port it got, and how to stop it. */
export interface Listening<S> {
  server: S;
  port: number;
  stop(): Promise<void>;
}

/** What a server platform tells {@link serverEntry}. */
export interface ServerPlatform<S> {
  /** The entry's name in messages, e.g. "cachette/bun". */
  name: string;
  /**
   * The variables a store is picked from, given the options of the call (which may name `env`
   * or a `store` themselves); it may throw a TypeError that says which permission is missing.
   */
  env(options: { env?: EnvLike; store?: unknown } | undefined): EnvLike;
  /** Whether `storeFromEnv` takes an `env` option of its own (Deno: reading Deno.env needs a permission). */
  storeEnvOption?: boolean;
  /**
   * Prepares the platform's server for `fetch` (failing here when the platform or its peer is
   * missing, before the store is waited for), and returns how to start it listening.
   */
  listener(fetch: (request: Request, env?: unknown) => Promise<Response>, callerName: string): Promise<(port: number, hostname: string) => Promise<Listening<S>>>;
}

/** `serve(handler, options)`: with `cache`, the server's handler is behind the HTTP cache. */
export interface ServeFunction<S> {
  (handler: RequestHandler, options: ServeOptions & { cache: true | ServerCacheOptions }): Promise<CachedServer<S>>;
  (handler: RequestHandler, options?: ServeOptions): Promise<RunningServer<S>>;
}

/** The functions a server platform's entry exports. */
export interface ServerEntry<S, O extends StoreSelectionOptions> {
  /** The handler behind the HTTP cache, its store picked from the platform's environment. */
  withCache(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler;
  /** {@link withCache} under its old name, saying once on the console that it was renamed. */
  cached(handler: RequestHandler, options?: ServerCacheOptions): ServerCachedHandler;
  /** {@link withCache} under the name of the function that was called, for its errors. */
  cachedFor(handler: RequestHandler, options: ServerCacheOptions, callerName: string): ServerCachedHandler;
  /** Starts the platform's server for a handler, behind the HTTP cache when `cache` asks for it. */
  serve: ServeFunction<S>;
  /** The store the platform's environment selects, announced once. */
  storeFromEnv(options?: O): Promise<Store>;
}

/** Builds a server platform's entry functions; see the module comment. */
export function serverEntry<S, O extends StoreSelectionOptions = StoreSelectionOptions>(platform: ServerPlatform<S>): ServerEntry<S, O> {
  const { name } = platform;
  const cachedFor = (handler: RequestHandler, options: ServerCacheOptions, callerName: string): ServerCachedHandler => serverCache(handler, platform.env(options), options, callerName);
  async function serve(handler: RequestHandler, options: ServeOptions = {}): Promise<RunningServer<S>> {
    const served = servedHandler(name, handler, options, cachedFor);
    const listen = await platform.listener(served.fetch, `serve() from ${name}`);
    await served.cache?.ready;
    const listening = await listen(served.port, served.hostname);
    return {
      server: listening.server,
      url: serverUrl(served.hostname, listening.port),
      cache: served.cache,
      async close() {
        await listening.stop();
        await served.cache?.close();
      },
    };
  }
  return {
    withCache: (handler, options) => cachedFor(handler, options ?? {}, `withCache() from ${name}`),
    cached(handler, options) {
      announceDeprecation(`cached() from ${name}`, `withCache() from ${name}`);
      return cachedFor(handler, options ?? {}, `cached() from ${name}`);
    },
    cachedFor,
    serve: serve as ServeFunction<S>,
    // platform.env may throw (Deno without --allow-env): keep it a rejection, like every other failure here.
    storeFromEnv: (options) =>
      Promise.resolve().then(() => openStoreFromEnv(platform.env(options), serverStoreFactories, options, `storeFromEnv() from ${name}`, platform.storeEnvOption ? ['env'] : [])),
  };
}
