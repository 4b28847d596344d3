import type { Store } from '../../src/store/types.ts';
import type { ContractTarget } from '../../src/store/testing/index.ts';
import { httpBehaviourSuite, type HttpTarget } from '../http/http-behaviour.ts';
import type { SuiteApi } from '../support/suite-api.ts';
import type { ServeFn } from './serve-suite.ts';

/** Opens a store once, on first use. */
export type LazyStore = () => Promise<Store>;

/**
 * Runs the HTTP behaviour suite, unchanged, once per store the runtime reaches: one store
 * connection per describe (each scenario gets its own namespace on it), closed afterwards.
 */
export function httpBehaviourOnStores(t: SuiteApi, stores: readonly ContractTarget[], targetFor: (store: LazyStore) => HttpTarget): void {
  for (const s of stores) {
    t.describe(`http behaviour on ${s.name}`, () => {
      let opened: Promise<Store> | undefined;
      const store: LazyStore = () => (opened ??= Promise.resolve(s.open()));
      t.afterAll(async () => {
        if (opened) await (await opened).close();
      });
      httpBehaviourSuite(t, targetFor(store));
    });
  }
}

/** A server runtime helper (cachette/node, /bun, /deno) as an HTTP behaviour target: real HTTP on 127.0.0.1. */
export function serveTarget(runtime: string, serve: ServeFn, store: LazyStore): HttpTarget {
  return {
    name: `${runtime} serve`,
    async start(origin, options) {
      const opened = await store();
      const server = await serve(origin, { port: 0, cache: { ...options, store: opened, log: false } });
      return {
        store: opened,
        // Redirects are the client's to see, not to follow.
        fetch: (path, init) => fetch(server.url + path, { redirect: 'manual', ...init }),
        purge: (target) => server.cache.purge(target),
        idle: () => server.cache.idle(),
        close: () => server.close(),
      };
    },
  };
}
