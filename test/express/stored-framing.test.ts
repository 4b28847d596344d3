// Issue 23, item 4, through cachette/express on Express 5 and Express 4: a stored entry whose
// framing lies is a corrupt miss on every store, and the keep-alive connection stays in step.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { cache } from '../../runtimes/express/index.ts';
import type { Store } from '../../src/store/types.ts';
import { expectStoredFramingIgnored } from '../http/hostile-framing.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

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
  describe(`cachette/express on ${name}: stored framing is never trusted`, () => {
    it('memory store', async () => {
      const store = memoryStore();
      await check(make, store);
      await store.close();
    });

    describe.runIf(requireRedis())('valkey store', () => {
      let store: Store;
      beforeAll(() => {
        store = valkeyStore(redisUrl!);
      });
      afterAll(() => store.close());
      it('valkey store', () => check(make, store));
    });
  });
}
