/** The Elysia plugin as an HTTP behaviour target: an Elysia app on Bun (its own `listen`, Bun.serve) over real loopback HTTP. */
import { Elysia } from 'elysia';
import { cache } from '../../src/bindings/elysia/index.ts';
import type { HttpTarget } from '../http/http-behaviour.ts';
import { asResponse } from '../http/odd-response.ts';
import { runningAt } from '../http/running-target.ts';
import type { LazyStore } from '../runtimes/http-targets.ts';

/** An Elysia app whose catch-all route calls the origin, with the cache plugin used at the root. */
export function elysiaTarget(store: LazyStore): HttpTarget {
  return {
    name: 'elysia',
    async start(origin, options) {
      const opened = await store();
      const plugin = cache({ store: opened, ...options });
      const app = new Elysia()
        .use(plugin)
        .all('*', async ({ request }) => asResponse(await origin(request)))
        // Origins that fail on purpose (stale-if-error): answered 500 as Elysia does, without printing the error.
        .onError(() => new Response('Internal Server Error', { status: 500 }))
        .listen({ port: 0, hostname: '127.0.0.1' });
      return runningAt(`http://127.0.0.1:${app.server!.port}`, opened, plugin, async () => {
        await app.stop(true);
      });
    },
  };
}
