/**
 * The full-stack app on Bun through Bun.serve. Started by the harness:
 * `bun bench/fullstack/servers/bun.ts` with PORT, REDIS_URL, FULLSTACK_CONTENDER and FULLSTACK_PAGE set.
 */
import { reportException } from '../app/app.ts';
import { openServerApp, portFrom, reportUnhandled } from './server-app.ts';

interface BunServeGlobal {
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Response | Promise<Response>; error: (error: Error) => Response }): unknown;
}

reportUnhandled((event, listener) => process.on(event, listener));
const { app } = await openServerApp('bun', process.env);
(globalThis as unknown as { Bun: BunServeGlobal }).Bun.serve({
  port: portFrom(process.env),
  hostname: '127.0.0.1',
  fetch: app.fetch,
  error(error) {
    reportException(error);
    return new Response('error', { status: 500 });
  },
});
