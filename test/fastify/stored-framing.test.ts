// Issue 23, item 4, through cachette/fastify on Fastify 5 and Fastify 4: a stored entry whose
// framing lies is a corrupt miss on every store, and the keep-alive connection stays in step.
import Fastify from 'fastify';
import Fastify4 from 'fastify4';
import { describe } from 'vitest';
import cache from '../../runtimes/node-http/fastify/index.ts';
import type { Store } from '../../src/store/types.ts';
import { expectStoredFramingIgnored, onEveryStore } from '../http/hostile-framing.ts';

let namespaces = 0;

async function check(make: typeof Fastify, store: Store): Promise<void> {
  const app = make();
  const namespace = `framing-fastify-${Date.now().toString(36)}-${namespaces++}`;
  const calls = new Map<string, number>();
  await app.register(cache, { store, namespace });
  app.get('/*', async (request, reply) => {
    const path = new URL(request.url, 'http://x').pathname;
    calls.set(path, (calls.get(path) ?? 0) + 1);
    return reply.header('cache-control', 'max-age=60').type('text/plain').send(`body of ${path}`);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await expectStoredFramingIgnored({
      port: (app.server.address() as { port: number }).port,
      host: 'shop.example',
      store,
      namespace,
      idle: () => app.cache.idle(),
      originCalls: (path) => calls.get(path) ?? 0,
    });
  } finally {
    app.server.closeAllConnections();
    await app.close();
  }
}

for (const [name, make] of [
  ['Fastify 5', Fastify],
  ['Fastify 4', Fastify4 as unknown as typeof Fastify],
] as const) {
  describe(`cachette/fastify on ${name}: stored framing is never trusted`, () => onEveryStore((store) => check(make, store)));
}
