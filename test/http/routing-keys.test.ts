// Issue 23, item 1, for the bindings that route on a parsed URL: Hono (here on @hono/node-server)
// and cachette/node's requestListener hand the app `request.url`, the same normalised URL the
// cache keys on, so a target with dot segments runs the route of the URL it is stored under
// (@hono/node-server refuses a backslash in the target outright: 400).
// Over raw sockets, since fetch would normalise the target before sending it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { requestListener } from '../../runtimes/node/index.ts';
import { cache } from '../../src/bindings/hono/index.ts';
import { rawGet } from '../proxy/support.ts';
import { serveFetch } from './node-serve.ts';
import { parseResponses } from './wire.ts';

const store = memoryStore();
afterAll(() => store.close());

const HOSTILE = ['/echo/../home', '/echo/%2e%2e/home', '/echo/x/..\\..\\home'];

/** Sends each hostile target, then /home: each is answered by the /home route or refused, and /home stays itself. */
async function expectRoutedAsKeyed(port: number): Promise<void> {
  for (const target of [...HOSTILE, '/home']) {
    const response = parseResponses((await rawGet(port, target, { host: 'shop.example' })).text).responses[0];
    assert.ok(response, target);
    if (response.status === 400) assert.notEqual(target, '/home');
    else assert.equal(response.body, 'home', target);
  }
}

describe('bindings that route on request.url run the route of the URL they store under', () => {
  it('Hono', async () => {
    const app = new Hono();
    const middleware = cache({ store, namespace: 'routing-hono', ttl: '1m', app });
    app.use('*', middleware);
    app.get('/echo/*', (c) => c.html(`echo ${c.req.path}`));
    app.get('/home', (c) => c.html('home'));
    const served = await serveFetch((request) => app.fetch(request));
    try {
      await expectRoutedAsKeyed(Number(new URL(served.url).port));
    } finally {
      await served.close();
      await middleware.close();
    }
  });

  it("cachette/node's requestListener", async () => {
    const listener = requestListener(
      async (request) => {
        const path = new URL(request.url).pathname;
        return new Response(path.startsWith('/echo/') ? `echo ${path}` : 'home', { headers: { 'content-type': 'text/html' } });
      },
      { store, namespace: 'routing-node', ttl: '1m', log: false },
    );
    const server = createServer(listener).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await expectRoutedAsKeyed((server.address() as AddressInfo).port);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await listener.cache.close();
    }
  });
});
