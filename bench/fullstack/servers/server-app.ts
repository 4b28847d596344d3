/**
 * Opens the app for a server runtime (Node, Bun, Deno) from the variables the harness sets:
 * FULLSTACK_CONTENDER (a contender id, see {@link SERVER_CONTENDERS}), FULLSTACK_PAGE
 * (off | none | cachette | hono-cache), FULLSTACK_NAMESPACE (cachette's key prefix) and REDIS_URL. Libraries load only when chosen, so a runtime
 * never loads a client it cannot run.
 */
import type { Hono } from 'hono';
import type { Store } from '../../../src/store/types.ts';
import type { CachetteVariant } from '../../contenders/cachette.ts';
import type { Contender, ContenderSpec } from '../../contenders/types.ts';
import { fullstackApp, honoCacheName, reportException, storeErrorReporter, type PageCache } from '../app/app.ts';

/** A server runtime of the bench. */
export type ServerRuntime = 'node' | 'bun' | 'deno';

/** The default store of a runtime, as its public entry picks it (cachette/node, /bun, /deno). */
async function defaultStore(runtime: ServerRuntime): Promise<Store> {
  const entry =
    runtime === 'node' ? await import('../../../runtimes/node/index.ts') : runtime === 'bun' ? await import('../../../runtimes/bun/index.ts') : await import('../../../runtimes/deno/index.ts');
  return entry.storeFromEnv({ log: (line) => console.error(line) });
}

/**
 * How each contender id opens on a server runtime. cachette's rows take `namespace` (its key
 * prefix; FULLSTACK_NAMESPACE, so tests sharing a server can clean up after themselves).
 */
export const SERVER_CONTENDERS: Record<string, (runtime: ServerRuntime, namespace: string) => Promise<ContenderSpec>> = {
  async cachette(runtime, namespace) {
    const store = await defaultStore(runtime);
    return cachetteRow({ id: namespace, label: 'cachette', store: () => store });
  },
  // The default store compresses from its own threshold (32 KiB on Valkey: not the document);
  // this row deflates everything from 1 KiB, the document included, to show what that costs.
  async 'cachette-compressed'(runtime, namespace) {
    const store = await defaultStore(runtime);
    return cachetteRow({ id: namespace, label: 'cachette, compression: true', store: () => store, compression: true });
  },
  // The configuration that serves repeated reads from process memory, kept current by CLIENT TRACKING.
  async 'cachette-l1'(runtime, namespace) {
    const store = await defaultStore(runtime);
    return cachetteRow({ id: namespace, label: "cachette, l1: { consistency: 'tracking' }", store: () => store, options: { l1: { consistency: 'tracking' } } });
  },
  // Memory in front that is never stale (issue 28), over the valkey store on every runtime (bun-redis has no coherence bus).
  'cachette-coherent': (_, namespace) => cachetteRow({ id: namespace, label: "cachette, l1: { consistency: 'coherent' }", store: 'valkey', options: { l1: { consistency: 'coherent' } } }),
  'cachette-valkey': (_, namespace) => cachetteRow({ id: namespace, label: 'cachette over the valkey store', store: 'valkey' }),
  async 'cachette-bun-redis'(_, namespace) {
    const { bunRedisStore } = await import('../../../adapters/bun-redis/index.ts');
    return cachetteRow({ id: namespace, label: "cachette over Bun's RedisClient", store: bunRedisStore });
  },
  iovalkey: async () => (await import('../../contenders/iovalkey.ts')).iovalkeySpec(false),
  'node-redis': async () => (await import('../../contenders/node-redis.ts')).nodeRedisSpec,
  'bun-redis': async () => (await import('../contenders/bun-redis.ts')).bunRedisRawSpec,
  'bentocache-l2': async () => (await import('../../contenders/bentocache.ts')).bentocacheSpec(false),
  'bentocache-tiered': async () => (await import('../../contenders/bentocache.ts')).bentocacheSpec(true),
  'cache-manager': async () => (await import('../../contenders/cache-manager.ts')).cacheManagerSpec,
  unstorage: async () => (await import('../../contenders/unstorage.ts')).unstorageSpec,
};

/** A cachette row whose store errors are reported (tallied once a second) for the harness to count. */
async function cachetteRow(variant: CachetteVariant): Promise<ContenderSpec> {
  const { cachetteSpec } = await import('../../contenders/cachette.ts');
  const report = storeErrorReporter(1000);
  return cachetteSpec({ ...variant, onCache: (cache) => cache.events.addEventListener('error', (event) => report((event as CustomEvent<{ operation: string; error: unknown }>).detail)) });
}

/** The app and what to close when the server stops. */
export interface OpenedApp {
  app: Hono;
  close(): Promise<void>;
}

/** Opens the contender and page cache the variables name, and the app over them. */
export async function openServerApp(runtime: ServerRuntime, env: Readonly<Record<string, string | undefined>>): Promise<OpenedApp> {
  const url = env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL must name the redis-server the contenders talk to');
  const id = env.FULLSTACK_CONTENDER ?? 'none';
  const namespace = env.FULLSTACK_NAMESPACE || 'fullstack';
  let contender: Contender | undefined;
  if (id !== 'none') {
    const open = SERVER_CONTENDERS[id];
    if (!open) throw new Error(`unknown FULLSTACK_CONTENDER "${id}"; known: ${Object.keys(SERVER_CONTENDERS).join(', ')}`);
    contender = await (await open(runtime, namespace)).open(url);
  }
  let pageStore: Store | undefined;
  let page: PageCache | undefined;
  switch (env.FULLSTACK_PAGE ?? 'off') {
    case 'off':
      break;
    case 'none':
      page = { kind: 'none' };
      break;
    case 'cachette':
      pageStore = await defaultStore(runtime);
      page = { kind: 'cachette', store: pageStore, namespace: `${namespace}-page` };
      break;
    case 'hono-cache':
      // Deno keeps its Cache API on disk: each row starts from an empty cache, as on workerd.
      await (globalThis as { caches?: { delete(name: string): Promise<boolean> } }).caches?.delete(honoCacheName(namespace));
      page = { kind: 'hono-cache', wait: true, cacheName: honoCacheName(namespace) };
      break;
    default:
      throw new Error(`FULLSTACK_PAGE must be off, none, cachette or hono-cache, got "${env.FULLSTACK_PAGE}"`);
  }
  return {
    app: fullstackApp({ contender, page, keyPrefix: namespace }),
    async close() {
      await contender?.close();
      await pageStore?.close();
    },
  };
}

/** Counts what escapes the handlers too: an exception the harness does not see is an error it cannot report. */
export function reportUnhandled(on: (event: 'unhandledRejection' | 'uncaughtException', listener: (error: unknown) => void) => void): void {
  on('unhandledRejection', reportException);
  on('uncaughtException', reportException);
}

/** The TCP port from PORT; the harness always sets it. */
export function portFrom(env: Readonly<Record<string, string | undefined>>): number {
  const port = Number(env.PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new RangeError(`PORT must be a TCP port, got "${env.PORT}"`);
  return port;
}
