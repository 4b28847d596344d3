// Issue 23, item 4, through cachette/express on Express 5 and Express 4: a stored entry whose
// framing lies is a corrupt miss on every store, and the keep-alive connection stays in step.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { describe } from 'vitest';
import { cache } from '../../runtimes/node-http/express/index.ts';
import type { Store } from '../../src/store/types.ts';
import { expectStoredFramingIgnored, onEveryStore } from '../http/hostile-framing.ts';

let namespaces = 0;

async function check(make: typeof express, store: Store): Promise<void> {
  const app = make();
  const namespace = `framing-express-${Date.now().toString(36)}-${namespaces++}`;
  const middleware = cache({ store, namespace });
  const calls = new Map<string, number>();
  app.use(middleware);
  app.use((req: express.Request, res: express.Response) => {
    calls.set(req.path, (calls.get(req.path) ?? 0) + 1);
    res.set('cache-control', 'max-age=60').type('text/plain').send(`body of ${req.path}`);
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await expectStoredFramingIgnored({
      port: (server.address() as AddressInfo).port,
      host: 'shop.example',
      store,
      namespace,
      idle: () => middleware.idle(),
      originCalls: (path) => calls.get(path) ?? 0,
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await middleware.close();
  }
}

for (const [name, make] of [
  ['Express 5', express],
  ['Express 4', express4],
] as const) {
  describe(`cachette/express on ${name}: stored framing is never trusted`, () => onEveryStore((store) => check(make, store)));
}
