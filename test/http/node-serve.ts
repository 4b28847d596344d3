/** Serves a fetch handler over node:http on a free 127.0.0.1 port (through @hono/node-server). */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';

/** A fetch handler listening on loopback. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Listens with `fetch` on 127.0.0.1 and a free port. */
export async function serveFetch(fetch: (request: Request) => Response | Promise<Response>): Promise<Served> {
  let server!: Server;
  const info = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, resolve) as Server;
  });
  return {
    url: `http://127.0.0.1:${info.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
