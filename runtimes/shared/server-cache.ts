import { openHttpCache } from '../../src/http/exchange/http-cache.ts';
import type { HttpCache, HttpCacheOptions, PurgeTarget } from '../../src/http/index.ts';
import { checkHttpCacheOptions, type HttpOptionsCaller } from '../../src/http/exchange/options.ts';
import type { Store } from '../../src/store/types.ts';
import { announceChoice, chooseStore, openStore, STORE_SELECTION_OPTIONS, type EnvLike, type StoreSelectionOptions } from './env-store.ts';
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

/** Options of the Node, Bun and Deno helpers' HTTP cache: how to pick the store, plus the HTTP cache's own options. */
export interface ServerCacheOptions extends StoreSelectionOptions, Omit<HttpCacheOptions, 'store' | 'cache'> {
  /** Variables to pick the store from; defaults to the process environment of the runtime. */
  env?: EnvLike;
}

/** Options of each server runtime's `serve`: where to listen, and whether to cache. */
export interface ServeOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default "127.0.0.1". */
  hostname?: string;
  /**
   * Puts the HTTP cache in front of the whole handler: `true` picks the store from the
   * environment, an object also sets the cache's options (`{ ttl: '30s' }`, `{ store }`).
   * Default `false`: the handler is served as it is, which is what an app that caches its own
   * routes (cachette/hono, cachette/express) wants — one cache, one Cache-Status member.
   */
  cache?: boolean | ServerCacheOptions;
}

/** A server started by a runtime's `serve`; `server` is the platform's own server object. */
export interface RunningServer<S> {
  server: S;
  /** e.g. "http://127.0.0.1:3000". */
  url: string;
  /** The HTTP cache in front of the handler, when `serve` was asked for one. */
  cache: ServerCachedHandler | undefined;
  /** Stops the server; then waits for the cache's background work and closes the store it opened. */
  close(): Promise<void>;
}

/** A server started by `serve(handler, { cache })`: its handler is behind the HTTP cache. */
export interface CachedServer<S> extends RunningServer<S> {
  cache: ServerCachedHandler;
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

/** The handler a runtime's `serve` listens with, and the cache in front of it when asked. */
export interface ServedHandler {
  fetch: (request: Request, env?: unknown) => Promise<Response>;
  cache: ServerCachedHandler | undefined;
}

/**
 * The HTTP cache for Node, Bun and Deno, shared by their helpers. The store is chosen from the
 * environment at once, so a bad VALKEY_URL throws at start-up and the line naming the store is
 * printed once; opening it may load an adapter, so requests wait for `ready`. A server process
 * outlives its responses, so background work needs no `waitUntil`: `close()` waits for it.
 *
 * When the handler's responses already carry this cache's Cache-Status member, another
 * cachette layer runs inside it (`cache()` from cachette/hono or cachette/express): the two
 * would store everything twice in two stores, so the first such response is reported once
 * through `log`.
 */
export function serverCache(handler: RequestHandler, env: EnvLike, options: ServerCacheOptions = {}, callerName = 'withCache()'): ServerCachedHandler {
  if (typeof handler !== 'function') throw new TypeError(`${callerName}: the handler must be a function (request) => Response | Promise<Response>`);
  const caller: HttpOptionsCaller = { name: callerName, own: SERVER_CACHE_OPTIONS, storeLater: true };
  // Every option is checked now, before the store is chosen or opened: a typo fails here.
  checkHttpCacheOptions(options, caller);
  const { env: explicitEnv, store: explicitStore, kvBinding, log, ...httpOptions } = options;
  const choice = chooseStore(explicitEnv ?? env, { store: explicitStore, kvBinding });
  announceChoice(choice, { log });
  const opened = openStore(choice, serverStoreFactories).then((store): [Store, HttpCache] => [store, openHttpCache({ ...httpOptions, store }, { name: callerName })]);
  // `ready` may never be awaited by the caller: keep an open failure from being unhandled here;
  // every request still sees it.
  const ready = opened.then(() => undefined);
  ready.catch(() => {});
  const name = httpOptions.name ?? 'cachette';
  let warned = log === false;
  const origin = async (request: Request, env: unknown) => {
    const response = await handler(request, env);
    if (!warned && hasCacheStatusMember(response.headers.get('cache-status'), name)) {
      warned = true;
      (typeof log === 'function' ? log : console.warn)(
        `[cachette] two caches are stacked: ${new URL(request.url).pathname} was already answered by a cachette layer inside the handler. ` +
          'Drop `cache` from serve()/withCache() and let that layer cache, or drop the inner layer.',
      );
    }
    return response;
  };
  const cached = async (request: Request, env?: unknown) => (await opened)[1].handle(request, (forwarded) => origin(forwarded, env));
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

/** What the server helpers' cache options take besides the HTTP cache's: how to pick the store. */
const SERVER_CACHE_OPTIONS: ReadonlyArray<keyof ServerCacheOptions> = ['env', ...STORE_SELECTION_OPTIONS];

const SERVE_OPTIONS = new Set(['port', 'hostname', 'cache']);

/**
 * Checks a runtime's `serve` options, and builds the handler it listens with: the handler as
 * it is, or behind the HTTP cache when `cache` asks for one. Cache options given at the top
 * level (as `serve` took them before it cached only when asked) are a TypeError that says where
 * they go, never a server that silently stopped caching.
 */
export function servedHandler(
  runtime: string,
  handler: RequestHandler,
  options: ServeOptions,
  wrap: (handler: RequestHandler, options: ServerCacheOptions, callerName: string) => ServerCachedHandler,
): ServedHandler & { port: number; hostname: string } {
  if (typeof handler !== 'function') throw new TypeError(`${runtime} serve(): the handler must be a function (request) => Response | Promise<Response>`);
  if (options === null || typeof options !== 'object') throw new TypeError(`${runtime} serve(): options must be an object such as { port: 3000 }`);
  for (const key of Object.keys(options)) {
    if (SERVE_OPTIONS.has(key)) continue;
    throw new TypeError(`${runtime} serve(): unknown option "${key}". serve() takes { port, hostname, cache }; cache options go inside cache, e.g. serve(handler, { cache: { ${key}: … } })`);
  }
  const { port = 3000, hostname = '127.0.0.1', cache = false } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`${runtime} serve(): port must be an integer from 0 to 65535, got ${String(port)}`);
  if (typeof hostname !== 'string' || hostname === '') throw new TypeError(`${runtime} serve(): hostname must be a non-empty string`);
  if (typeof cache !== 'boolean' && (cache === null || typeof cache !== 'object')) throw new TypeError(`${runtime} serve(): cache must be true, false or the cache's options`);
  if (cache === false) return { fetch: async (request, env) => handler(request, env), cache: undefined, port, hostname };
  const cached = wrap(handler, cache === true ? {} : cache, `serve({ cache }) from ${runtime}`);
  return { fetch: cached, cache: cached, port, hostname };
}

/** The URL a server listens on, with an IPv6 address in brackets. */
export function serverUrl(hostname: string, port: number): string {
  return `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;
}

/** True when a Cache-Status field value has a member named `name` (RFC 9211 §2: a list of tokens with parameters). */
function hasCacheStatusMember(value: string | null, name: string): boolean {
  if (value === null) return false;
  return value.split(',').some((member) => member.split(';')[0]!.trim() === name);
}

/**
 * The answer of Bun's and Deno's servers to a handler that throws (and has no stale response to
 * stand in): a plain 500, as on node:http, instead of the runtime's own error page; the error
 * goes to the log.
 */
export function internalServerError(error: unknown): Response {
  console.error(error);
  return new Response('Internal Server Error', { status: 500 });
}
