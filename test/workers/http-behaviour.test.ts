// The HTTP behaviour suite inside workerd, unchanged, through cachette/workers' withCache on
// every store a Worker reaches: memory, miniflare's KV, and Upstash through the bridge.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cloudflareKvStore } from '../../adapters/cloudflare-kv/index.ts';
import { withCache } from '../../runtimes/workers/index.ts';
import type { HttpTarget } from '../http/http-behaviour.ts';
import { httpBehaviourOnStores, type LazyStore } from '../runtimes/http-targets.ts';
import { storeTargets } from '../runtimes/store-targets.ts';

/** withCache called the way workerd calls a Worker: one ExecutionContext per request. */
function workerTarget(store: LazyStore): HttpTarget {
  return {
    name: 'workers withCache',
    async start(origin, options) {
      const opened = await store();
      const worker = withCache((request: Request) => origin(request), { ...options, store: opened, log: false });
      const workerEnv = {};
      const pending: Array<ReturnType<typeof createExecutionContext>> = [];
      return {
        store: opened,
        async fetch(path, init) {
          const request = new Request(`http://127.0.0.1:8787${path}`, init);
          const ctx = createExecutionContext();
          pending.push(ctx);
          // workerd answers a Worker that throws with a 500; the suite expects that of a failed origin.
          const response = await worker.fetch(request, workerEnv, ctx).catch(() => new Response('Internal Server Error', { status: 500 }));
          // The URL a Worker sees under `wrangler dev`. A Response made in process has no url; a fetched one carries the request's, which the suite reads.
          Object.defineProperty(response, 'url', { value: request.url });
          return response;
        },
        purge: (target) => worker.purge(target, workerEnv),
        // Background work is whatever the requests handed to ctx.waitUntil.
        idle: async () => {
          for (const ctx of pending.splice(0)) await waitOnExecutionContext(ctx);
        },
        close: async () => {},
      };
    },
  };
}

const stores = [...storeTargets({ ...env }, { tcp: false }), { name: 'cloudflare-kv', open: () => cloudflareKvStore({ namespace: env.CACHETTE_KV }) }];
httpBehaviourOnStores({ describe, it, beforeAll, afterAll }, stores, workerTarget);
