/**
 * The routing-key rule (docs/security.md), for a binding whose framework routes on the request
 * target and the Host as the client sent them (Express, Fastify): a request whose target or Host
 * URL normalisation would change (dot segments, %2e%2e, backslashes, an escaped or upper-case
 * host, a default port, an IPv4 shorthand) goes past the cache. Over raw sockets: fetch would
 * normalise the very bytes under test.
 */
import assert from 'node:assert/strict';
import { it } from 'vitest';
import type { PurgeTarget } from '../../src/http/index.ts';
import { rawAnswer as answer, wireHeader } from './wire.ts';

/**
 * An app behind the binding, listening on 127.0.0.1, with the cache in front of two routes: one
 * that reflects its path under `/echo/` (`echo <path>`), and `/home`, which answers `home` for the
 * host `shop.example` (with or without a port) and redirects every other name there with a 301.
 */
export interface RoutedApp {
  port: number;
  idle(): Promise<void>;
  purge(target: PurgeTarget): Promise<number>;
  close(): Promise<void>;
}

/** The two scenarios of the rule, each on an app of its own from `start`. */
export function routingKeyScenarios(start: () => Promise<RoutedApp>): void {
  it('does not store what a target with dot segments, %2e%2e or backslashes routed to under the normalised URL', async () => {
    const app = await start();
    try {
      for (const target of ['/echo/../home', '/echo/%2e%2e/home', '/echo/%2E%2E/home', '/echo/x/..\\..\\home', '/echo/./../home']) {
        const hostile = await answer(app.port, target, 'shop.example');
        assert.match(hostile.body, /^echo /, `${target} ran the echo route`);
        assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${target}: past the cache`);
        await app.idle();
        const home = await answer(app.port, '/home', 'shop.example');
        assert.equal(home.body, 'home', `${target} poisoned /home`);
        assert.match(wireHeader(home, 'cache-status') ?? '', /fwd=uri-miss/, `${target}: /home was never stored`);
        await app.purge({ url: 'http://shop.example/home' });
      }
      // A target normalisation leaves alone is cached as before.
      assert.match(wireHeader(await answer(app.port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /stored/);
      await app.idle();
      assert.match(wireHeader(await answer(app.port, '/echo/a', 'shop.example'), 'cache-status') ?? '', /hit/);
    } finally {
      await app.close();
    }
  });

  it('does not store the answer to a Host that normalises to another name (escaped, upper-case, default port, IPv4 shorthand)', async () => {
    const app = await start();
    try {
      for (const host of ['sh%6Fp.example', 'SHOP.example', 'shop.example:80', '127.1']) {
        const hostile = await answer(app.port, '/home', host);
        // The app redirects every name but its own (`shop.example:80` is its own name with a port).
        assert.equal(hostile.status, host === 'shop.example:80' ? 200 : 301, host);
        assert.equal(wireHeader(hostile, 'cache-status'), undefined, `${host}: past the cache`);
        await app.idle();
        const visitor = await answer(app.port, '/home', 'shop.example');
        assert.equal(visitor.status, 200, `${host} stored its redirect for shop.example`);
        assert.equal(visitor.body, 'home');
        await app.purge({ url: 'http://shop.example/home' });
      }
    } finally {
      await app.close();
    }
  });
}
