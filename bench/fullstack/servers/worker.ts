/**
 * The full-stack app as a Worker, run in workerd by workerd-host.ts (miniflare). The contender
 * and the store come from its bindings: FULLSTACK_CONTENDER, FULLSTACK_PAGE, FULLSTACK_NAMESPACE, FULLSTACK_STORE
 * (upstash | kv), UPSTASH_REDIS_REST_URL/_TOKEN (the local bridge), CACHETTE_KV (local KV) and
 * REDIS_URL (for the peers that need TCP, which nodejs_compat lets them try).
 *
 * Everything opens on the first request: a Worker may do no I/O at global scope.
 */
import type { Hono } from 'hono';
import { cloudflareKvStore, type KVNamespaceLike } from '../../../adapters/cloudflare-kv/index.ts';
import { upstashStore } from '../../../adapters/upstash/index.ts';
import type { LocationCacheOptions } from '../../../src/cache/tiers/location-options.ts';
import type { Store } from '../../../src/store/types.ts';
import type { Contender, ContenderSpec } from '../../contenders/types.ts';
import { fullstackApp, honoCacheName, reportException, storeErrorReporter, type PageCache } from '../app/app.ts';
import { kvRawContender, type KvTextNamespace } from '../contenders/kv.ts';
import { upstashRawContender } from '../contenders/upstash.ts';

interface Env {
  FULLSTACK_CONTENDER?: string;
  FULLSTACK_NAMESPACE?: string;
  FULLSTACK_PAGE?: string;
  FULLSTACK_STORE?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  REDIS_URL?: string;
  CACHETTE_KV?: KVNamespaceLike & KvTextNamespace;
}

interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props: unknown;
}

/** cachette's key prefix: FULLSTACK_NAMESPACE, so tests sharing a server can clean up after themselves. */
const namespaceOf = (env: Env) => env.FULLSTACK_NAMESPACE || 'fullstack';

/** cachette's store on Workers: Upstash through the bridge, or the KV binding. */
function storeFor(env: Env): Store {
  if (env.FULLSTACK_STORE === 'kv') {
    if (!env.CACHETTE_KV) throw new Error('FULLSTACK_STORE=kv needs the CACHETTE_KV binding');
    return cloudflareKvStore({ namespace: env.CACHETTE_KV });
  }
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = env;
  if (!url || !token) throw new Error('FULLSTACK_STORE=upstash needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
  // As cachette/workers opens it: no SDK auto-pipelining across the requests of one isolate.
  return upstashStore({ url, token, autoPipelining: false });
}

/** The peers written for Node's TCP clients, tried here through nodejs_compat against REDIS_URL. */
const TCP_PEERS: Record<string, () => Promise<ContenderSpec>> = {
  'bentocache-l2': async () => (await import('../../contenders/bentocache.ts')).bentocacheSpec(false),
  'bentocache-tiered': async () => (await import('../../contenders/bentocache.ts')).bentocacheSpec(true),
  'cache-manager': async () => (await import('../../contenders/cache-manager.ts')).cacheManagerSpec,
  unstorage: async () => (await import('../../contenders/unstorage.ts')).unstorageSpec,
};

async function openContender(id: string, env: Env): Promise<Contender | undefined> {
  switch (id) {
    case 'none':
      return undefined;
    case 'cachette':
      return openCachette(env, 'cachette', undefined);
    case 'cachette-location-verified':
      return openCachette(env, 'cachette, locationCache verified', { mode: 'verified' });
    case 'cachette-location-bounded':
      return openCachette(env, 'cachette, locationCache bounded 1 s', { mode: 'bounded', maxAge: '1s' });
    case 'upstash':
      return upstashRawContender(env.UPSTASH_REDIS_REST_URL ?? '', env.UPSTASH_REDIS_REST_TOKEN ?? '');
    case 'kv':
      if (!env.CACHETTE_KV) throw new Error('the raw KV contender needs the CACHETTE_KV binding');
      return kvRawContender(env.CACHETTE_KV);
  }
  const peer = TCP_PEERS[id];
  if (!peer) throw new Error(`unknown FULLSTACK_CONTENDER "${id}"`);
  if (!env.REDIS_URL) throw new Error(`${id} needs REDIS_URL`);
  return (await peer()).open(env.REDIS_URL);
}

/** cachette over the target's store, with the per-location tier (the Cache API, miniflare's local one) when `locationCache` is given. */
async function openCachette(env: Env, label: string, locationCache: LocationCacheOptions | undefined): Promise<Contender> {
  const { cachetteSpec } = await import('../../contenders/cachette.ts');
  const store = storeFor(env);
  const report = storeErrorReporter();
  // batch: false, as cachette/workers sets it: one isolate's requests must not share a store call.
  return cachetteSpec({
    id: namespaceOf(env),
    label,
    store: () => store,
    batch: false,
    ...(locationCache === undefined ? {} : { options: { locationCache } }),
    onCache: (cache) => cache.events.addEventListener('error', (event) => report((event as CustomEvent<{ operation: string; error: unknown }>).detail)),
  }).open('');
}

function pageFor(kind: string | undefined, env: Env): PageCache | undefined {
  switch (kind ?? 'off') {
    case 'off':
      return undefined;
    case 'none':
      return { kind: 'none' };
    case 'cachette':
      return { kind: 'cachette', store: storeFor(env), namespace: `${namespaceOf(env)}-page`, batch: false };
    case 'hono-cache':
      return { kind: 'hono-cache', wait: false, cacheName: honoCacheName(namespaceOf(env)) };
    default:
      throw new Error(`FULLSTACK_PAGE must be off, none, cachette or hono-cache, got "${kind}"`);
  }
}

let app: Promise<Hono> | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response> {
    // The harness's liveness probe: workerd is up, whatever the contender will do.
    if (new URL(request.url).pathname === '/health') return new Response('ok');
    app ??= openContender(env.FULLSTACK_CONTENDER ?? 'none', env).then((contender) => fullstackApp({ contender, page: pageFor(env.FULLSTACK_PAGE, env), keyPrefix: namespaceOf(env) }));
    let opened: Hono;
    try {
      opened = await app;
    } catch (error) {
      // A failed open is retried by the next request rather than kept for the isolate's life.
      app = undefined;
      reportException(error);
      return new Response(`error: cannot open the contender: ${(error as Error).message}`, { status: 500 });
    }
    return opened.fetch(request, env, ctx);
  },
};
