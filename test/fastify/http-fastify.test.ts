import Fastify4 from 'fastify4';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/store/types.ts';
import { httpBehaviourSuite } from '../http/http-behaviour.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { fastifyTarget, type FastifyFactory } from './fastify-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/fastify: one store per describe, each test
// in its own namespace on it. Fastify 5 over memory and Valkey, as Express runs it; Fastify 4
// (the lowest supported) over memory.
const api = { describe, it, beforeAll, afterAll };
describe('memory store', () => {
  const store = memoryStore();
  afterAll(() => store.close());
  httpBehaviourSuite(
    api,
    fastifyTarget(() => store),
  );
});

describe('Fastify 4, memory store', () => {
  const store = memoryStore();
  afterAll(() => store.close());
  httpBehaviourSuite(
    api,
    fastifyTarget(() => store, Fastify4 as unknown as FastifyFactory, 'fastify 4'),
  );
});

describe.runIf(requireRedis())('valkey store', () => {
  let store: Store;
  beforeAll(() => {
    store = valkeyStore(redisUrl!);
  });
  afterAll(() => store.close());
  httpBehaviourSuite(
    api,
    fastifyTarget(() => store),
  );
});
