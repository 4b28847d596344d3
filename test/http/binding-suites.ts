/**
 * The HTTP behaviour suite on a framework binding (Express, Fastify), as each binding's tests run
 * it: over a memory store, and over Valkey where the suites' redis-server runs. One store per
 * describe; each test gets its own namespace on it.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/store/types.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { httpBehaviourSuite, type HttpTarget } from './http-behaviour.ts';

const api = { describe, it, beforeAll, afterAll };

/** The suite on `target` over one memory store, in a describe called `name`. */
export function behaviourOverMemory(name: string, target: (store: () => Store) => HttpTarget): void {
  describe(name, () => {
    const store = memoryStore();
    afterAll(() => store.close());
    httpBehaviourSuite(
      api,
      target(() => store),
    );
  });
}

/** The suite on `target` over the suites' Valkey, in a describe called `name` (skipped without it). */
export function behaviourOverValkey(name: string, target: (store: () => Store) => HttpTarget): void {
  describe.runIf(requireRedis())(name, () => {
    let store: Store;
    beforeAll(() => {
      store = valkeyStore(redisUrl!);
    });
    afterAll(() => store.close());
    httpBehaviourSuite(
      api,
      target(() => store),
    );
  });
}
