/**
 * cachette/workers/upstash: `withCache` from `cachette/workers`, able to open Upstash too.
 *
 * ```ts
 * import { withCache } from 'cachette/workers/upstash';   // needs @upstash/redis installed
 * export default withCache(app);
 * ```
 *
 * UPSTASH_REDIS_REST_URL + _TOKEN → Upstash over HTTP; otherwise as `cachette/workers`: a KV
 * binding named CACHETTE_KV (or `kvBinding`) → Workers KV, else memory. A separate entry so
 * that only the Workers that use Upstash bundle its client.
 */
import { upstashStore } from '../../../adapters/upstash/index.ts';
import type { StoreFactories } from '../../shared/env-store.ts';
import { cachedWorker, openKv, type CachedWorker, type WorkerApp, type WorkerFetch, type WorkersCacheOptions } from '../cached-worker.ts';

export type { CachedWorker, WorkerApp, WorkerContext, WorkerFetch, WorkersCacheOptions } from '../cached-worker.ts';

/**
 * Upstash and KV. The SDK's auto-pipelining is off because an isolate serves concurrent
 * requests: merging two requests' commands into one fetch would issue one request's I/O from
 * the other's context.
 */
const upstashFactories: StoreFactories = {
  upstash: ({ url, token }) => upstashStore({ url, token, autoPipelining: false }),
  'cloudflare-kv': openKv,
};

/** Wraps a Worker's fetch in the HTTP cache over Upstash, KV or memory, chosen from the bindings. */
export function withCache<Env extends object>(app: WorkerApp<Env> | WorkerFetch<Env>, options: WorkersCacheOptions = {}): CachedWorker<Env> {
  return cachedWorker(app, options, upstashFactories, 'cachette/workers/upstash');
}
