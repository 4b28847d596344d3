/**
 * The Worker wrapper both `cachette/workers` entries return: the HTTP cache around a Worker's
 * fetch, over the store the isolate's bindings select. Each entry passes the store factories
 * it can open, so that a bundle contains only the store clients its entry imports.
 */
import { cloudflareKvStore } from '../../adapters/cloudflare-kv/index.ts';
import { duringRequest } from '../../src/cache/background.ts';
import { openHttpCache } from '../../src/http/exchange/http-cache.ts';
import type { HttpCache, HttpCacheOptions, PurgeTarget } from '../../src/http/index.ts';
import { checkHttpCacheOptions } from '../../src/http/exchange/options.ts';
import { openStoreFromEnv, STORE_SELECTION_OPTIONS, type StoreFactories, type StoreSelectionOptions } from '../shared/env-store.ts';

/** A Worker's ExecutionContext, typed structurally (the cache itself only uses `waitUntil`). */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props: unknown;
}

/** A Worker's fetch handler. */
export type WorkerFetch<Env> = (request: Request, env: Env, ctx: WorkerContext) => Response | Promise<Response>;

/** Something with a Worker's fetch: a Hono app, or a module's default export. */
export interface WorkerApp<Env> {
  fetch(request: Request, env: Env, ctx: WorkerContext): Response | Promise<Response>;
}

/** Options of `withCache`: how to pick the store, plus the HTTP cache's own options. */
export interface WorkersCacheOptions extends StoreSelectionOptions, Omit<HttpCacheOptions, 'store' | 'cache'> {}

/** The Worker returned by `withCache`: export it as default. */
export interface CachedWorker<Env> {
  fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response>;
  /** Deletes responses stored for a URL or a tag, through the store chosen for `env`. */
  purge(target: PurgeTarget, env: Env): Promise<number>;
}

/** Workers KV through its binding: needs no client library, so every entry can open it. */
export const openKv: NonNullable<StoreFactories['cloudflare-kv']> = ({ namespace }) => cloudflareKvStore({ namespace });

/** Wraps `app` in the HTTP cache, opening the store the bindings select with `factories`; `entry` names the import in errors. */
export function cachedWorker<Env extends object>(app: WorkerApp<Env> | WorkerFetch<Env>, options: WorkersCacheOptions, factories: StoreFactories, entry: string): CachedWorker<Env> {
  const name = `withCache() from ${entry}`;
  const origin: WorkerFetch<Env> | undefined = typeof app === 'function' ? app : typeof app?.fetch === 'function' ? (r, e, c) => app.fetch(r, e, c) : undefined;
  if (!origin) throw new TypeError(`${name}: pass a Hono app (or anything with fetch(request, env, ctx)) or a fetch handler`);
  // Checked now, at module scope where withCache runs, not when the first request opens the cache.
  checkHttpCacheOptions(options, { name, own: STORE_SELECTION_OPTIONS, storeLater: true });
  const { store, kvBinding, log, ...httpOptions } = options;
  // One cache per env object: an isolate sees one env for its whole life, so this is "once per
  // isolate", while tests that pass different bindings still get separate caches.
  const caches = new WeakMap<object, Promise<HttpCache>>();
  const cacheFor = (env: Env): Promise<HttpCache> => {
    let cache = caches.get(env);
    if (!cache) {
      cache = openStoreFromEnv(env as Record<string, unknown>, factories, { store, kvBinding, log }).then((s) => openHttpCache({ batch: false, ...httpOptions, store: s }, { name }));
      // A store that cannot be opened is retried by the next request instead of failing the isolate for good.
      cache.catch(() => caches.delete(env));
      caches.set(env, cache);
    }
    return cache;
  };
  return {
    async fetch(request, env, ctx) {
      const http = await cacheFor(env);
      const waitUntil = (promise: Promise<unknown>) => ctx.waitUntil(promise);
      // Also the platform's waitUntil for what the Worker's own getOrSet calls start meanwhile.
      return duringRequest(waitUntil, () => http.handle(request, async (r) => origin(r, env, ctx), { waitUntil }));
    },
    async purge(target, env) {
      return (await cacheFor(env)).purge(target);
    },
  };
}
