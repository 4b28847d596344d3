/** The h3 middleware as an HTTP behaviour target: an h3 v2 app on node:http (h3's own toNodeHandler) over real loopback HTTP. */
import { createServer } from 'node:http';
import { H3, toNodeHandler } from 'h3';
import { cache } from '../../src/bindings/h3/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { HttpTarget } from '../http/http-behaviour.ts';
import { asResponse } from '../http/odd-response.ts';
import { listenOnLoopback, runningAt } from '../http/running-target.ts';

/** An h3 app whose catch-all route calls the origin, behind the cache middleware used on every path. */
export function h3Target(store: () => Store): HttpTarget {
  return {
    name: 'h3',
    async start(origin, options) {
      // Origins that fail on purpose (stale-if-error): answered 500 as h3 does, without printing the error.
      const app = new H3({ silent: true });
      const opened = store();
      const middleware = cache({ store: opened, ...options });
      app.use(middleware);
      app.all('/**', async (event) => asResponse(await origin(event.req)));
      const { base, stop } = await listenOnLoopback(createServer(toNodeHandler(app)));
      return runningAt(base, opened, middleware, stop);
    },
  };
}
