import { createHttpCache, type HttpCache, type HttpCacheOptions, type PurgeTarget } from '../src/http/index.ts';
import type { Store } from '../src/store/types.ts';
import { announceChoice, chooseStore, openStore, type EnvLike, type StoreSelectionOptions } from './env-store.ts';
import { serverStoreFactories } from './server-stores.ts';

/**
 * What a server runtime helper wraps: a fetch-style handler (Hono's `app.fetch` is one). It
 * gets the platform's second argument of the request it runs for, as it would without the
 * cache (Node: `{ incoming, outgoing }` from @hono/node-server, with which Hono's earlyHints
 * middleware sends 103 Early Hints and getConnInfo finds the client; Bun: the server; Deno:
 * the connection info). A background revalidation gets that of the request that started it,
 * whose response is already sent: Early Hints then see `headersSent` and send nothing.
 */
export type RequestHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** Options of the Node, Bun and Deno helpers: how to pick the store, plus the HTTP cache's own options. */
export interface ServerCacheOptions extends StoreSelectionOptions, Omit<HttpCacheOptions, 'store' | 'cache'> {
  /** Variables to pick the store from; defaults to the process environment of the runtime. */
  env?: EnvLike;
}

/** Options of each server runtime's `serve`: the cache's, plus where to listen. */
export interface ServeOptions extends ServerCacheOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default "127.0.0.1". */
  hostname?: string;
}

/** A server started by a runtime's `serve`; `server` is the platform's own server object. */
export interface CachedServer<S> {
  server: S;
  /** e.g. "http://127.0.0.1:3000". */
  url: string;
  cache: ServerCachedHandler;
  /** Stops the server, then waits for the cache's background work and closes its store. */
  close(): Promise<void>;
}

/** A cached handler for a long-lived server process. */
export interface ServerCachedHandler {
  /** Answers `request`; `env`, the platform's second argument, reaches the handler whenever it runs for this request. */
  (request: Request, env?: unknown): Promise<Response>;
  /** Resolves once the store is open; rejects when it cannot be opened (also surfaced by the first request). */
  readonly ready: Promise<void>;
  /** Deletes the responses stored for a URL or carrying a tag. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background work (store writes, revalidations) has settled. */
  idle(): Promise<void>;
  /** Waits for background work (store writes, revalidations), then closes the store it opened (never one you passed). */
  close(): Promise<void>;
}

/**
 * The HTTP cache for Node, Bun and Deno, shared by their helpers. The store is chosen from the
 * environment at once, so a bad VALKEY_URL throws at start-up and the line naming the store is
 * printed once; opening it may load an adapter, so requests wait for `ready`. A server process
 * outlives its responses, so background work needs no `waitUntil`: `close()` waits for it.
 */
export function serverCache(handler: RequestHandler, env: EnvLike, options: ServerCacheOptions = {}): ServerCachedHandler {
  if (typeof handler !== 'function') throw new TypeError('cachette: the handler must be a function (request) => Response | Promise<Response>');
  const { env: explicitEnv, store: explicitStore, kvBinding, log, ...httpOptions } = options;
  const choice = chooseStore(explicitEnv ?? env, { store: explicitStore, kvBinding });
  announceChoice(choice, { log });
  const opened = openStore(choice, serverStoreFactories).then((store): [Store, HttpCache] => [store, createHttpCache({ ...httpOptions, store })]);
  // `ready` may never be awaited by the caller: keep an open failure from being unhandled here;
  // every request still sees it.
  const ready = opened.then(() => undefined);
  ready.catch(() => {});
  const cached = async (request: Request, env?: unknown) => (await opened)[1].handle(request, async (forwarded) => handler(forwarded, env));
  return Object.assign(cached, {
    ready,
    purge: async (target: PurgeTarget) => (await opened)[1].purge(target),
    idle: async () => (await opened)[1].idle(),
    close: async () => {
      const [store, http] = await opened;
      await http.close();
      if (choice.kind !== 'explicit') await store.close();
    },
  });
}
