/**
 * The full-stack app on Deno through Deno.serve. Started by the harness:
 * `deno run -A --no-check bench/fullstack/servers/deno.ts` with PORT, REDIS_URL,
 * FULLSTACK_CONTENDER and FULLSTACK_PAGE set.
 */
import { reportException } from '../app/app.ts';
import { openServerApp, portFrom, reportUnhandled } from './server-app.ts';

interface DenoServeGlobal {
  serve(options: { port: number; hostname: string; onListen: () => void; onError: (error: unknown) => Response }, handler: (request: Request) => Response | Promise<Response>): unknown;
}

reportUnhandled((event, listener) => process.on(event, listener));
const { app } = await openServerApp('deno', process.env);
(globalThis as unknown as { Deno: DenoServeGlobal }).Deno.serve(
  {
    port: portFrom(process.env),
    hostname: '127.0.0.1',
    onListen: () => {},
    onError(error) {
      reportException(error);
      return new Response('error', { status: 500 });
    },
  },
  app.fetch,
);
