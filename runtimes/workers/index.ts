/**
 * cachette/workers: the HTTP cache around a Cloudflare Worker's fetch.
 *
 * ```ts
 * import { withCache } from 'cachette/workers';
 * export default withCache(app);                   // a Hono app, or (request, env, ctx) => Response
 * ```
 *
 * The store comes from the Worker's bindings, chosen on the first request of each isolate and
 * kept for the isolate's life: a KV binding named CACHETTE_KV (or `kvBinding`) → Workers KV,
 * otherwise memory (this isolate only); a store you pass always wins. This entry imports no
 * store client, so a KV-only Worker bundles without `@upstash/redis` installed; Upstash over
 * HTTP is `cachette/workers/upstash`, the same `withCache` that also reads
 * UPSTASH_REDIS_REST_URL + _TOKEN. VALKEY_URL / REDIS_URL are refused: a Worker cannot reach
 * Valkey through iovalkey. Store writes and stale-while-revalidate refreshes run in
 * `ctx.waitUntil`, after the response has been sent; so do the grace refreshes and store writes
 * that `getOrSet` calls made by the Worker start while it handles the request.
 */
import type { StoreFactories } from '../shared/env-store.ts';
import { cachedWorker, openKv, type CachedWorker, type WorkerApp, type WorkerFetch, type WorkersCacheOptions } from './cached-worker.ts';

export type { CachedWorker, WorkerApp, WorkerContext, WorkerFetch, WorkersCacheOptions } from './cached-worker.ts';

/**
 * KV, and a clear refusal of Upstash variables: silently falling back to KV or memory would
 * split the cache between isolates without anyone noticing.
 */
const kvFactories: StoreFactories = {
  'cloudflare-kv': openKv,
  upstash: () => {
    throw new TypeError(
      "cachette/workers: UPSTASH_REDIS_REST_URL is set, but this entry leaves Upstash out so that KV-only Workers bundle without @upstash/redis; import { withCache } from 'cachette/workers/upstash' (and install @upstash/redis)",
    );
  },
};

/** Wraps a Worker's fetch in the HTTP cache over KV or memory; see the module comment for how the store is chosen. */
export function withCache<Env extends object>(app: WorkerApp<Env> | WorkerFetch<Env>, options: WorkersCacheOptions = {}): CachedWorker<Env> {
  return cachedWorker(app, options, kvFactories, 'cachette/workers');
}
