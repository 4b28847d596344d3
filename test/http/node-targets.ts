/** The Node targets of the HTTP behaviour suite: the reverse proxy and the Hono middleware, each over real loopback HTTP. */
import { Hono } from 'hono';
import { startProxy } from '../../products/proxy/index.ts';
import { cache } from '../../src/bindings/hono/index.ts';
import type { Store } from '../../src/index.ts';
import type { HttpTarget } from './http-behaviour.ts';
import { serveFetch } from './node-serve.ts';

/** Client-side fetch against a base URL: redirects are the client's to see, not to follow. */
function clientFetch(base: string) {
  return (path: string, init?: RequestInit) => fetch(base + path, { redirect: 'manual', ...init });
}

/** The caching reverse proxy (cachette/node/proxy) in front of the origin served over node:http. */
export function proxyTarget(store: () => Store): HttpTarget {
  return {
    name: 'proxy',
    async start(origin, options) {
      const served = await serveFetch(origin);
      const opened = store();
      const proxy = await startProxy({ origin: served.url, store: opened, ...options });
      return {
        store: opened,
        fetch: clientFetch(proxy.url),
        purge: (target) => proxy.purge(target),
        idle: () => proxy.idle(),
        async close() {
          await proxy.close();
          await served.close();
        },
      };
    },
  };
}

/** The Hono middleware on a Hono app served over node:http; the app's handler calls the origin in process. */
export function honoTarget(store: () => Store): HttpTarget {
  return {
    name: 'hono',
    async start(origin, options) {
      const app = new Hono();
      // Origins that fail on purpose (stale-if-error): answer as Hono's default handler does, without printing the stack.
      app.onError((_, c) => c.text('Internal Server Error', 500));
      const opened = store();
      const middleware = cache({ store: opened, ...options, app });
      app.use('*', middleware);
      app.all('*', (c) => origin(c.req.raw));
      const served = await serveFetch((request) => app.fetch(request));
      return {
        store: opened,
        fetch: clientFetch(served.url),
        purge: (target) => middleware.purge(target),
        idle: () => middleware.idle(),
        async close() {
          await served.close();
          await middleware.close();
        },
      };
    },
  };
}
