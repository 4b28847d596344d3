// Issue 23, items 1 and 3: Express routes on the request target and the Host as the client sent
// them, the cache keys on their normalised URL; the rule's scenarios on Express 5 and Express 4.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { afterAll, describe } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cache } from '../../runtimes/node-http/express/index.ts';
import { routingKeyScenarios } from '../http/routing-key-scenarios.ts';

const store = memoryStore();
afterAll(() => store.close());

/** Express 5 and Express 4, with the wildcard syntax each one's router takes. */
const flavours = [
  { name: 'Express 5', make: express, wildcard: '/echo/*rest' },
  { name: 'Express 4', make: express4, wildcard: '/echo/*' },
] as const;

let namespaces = 0;

for (const flavour of flavours) {
  describe(`cachette/express on ${flavour.name}: the key is what the app routes on`, () =>
    routingKeyScenarios(async () => {
      const app = flavour.make();
      const middleware = cache({ store, namespace: `routing-${namespaces++}`, ttl: '1m' });
      app.use(middleware);
      // A route that reflects its path, and a canonical-host redirect, both answered with the default headers.
      app.get(flavour.wildcard, (req, res) => void res.type('html').send(`echo ${req.path}`));
      app.get('/home', (req, res) => {
        if (req.hostname !== 'shop.example') return void res.redirect(301, 'https://shop.example/home');
        res.type('html').send('home');
      });
      const server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return {
        port: (server.address() as AddressInfo).port,
        idle: () => middleware.idle(),
        purge: (target) => middleware.purge(target),
        async close() {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          await middleware.close();
        },
      };
    }));
}
