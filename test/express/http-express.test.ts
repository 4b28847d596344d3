import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/store/types.ts';
import { httpBehaviourSuite } from '../http/http-behaviour.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { expressTarget } from './express-target.ts';

// The HTTP behaviour suite, unchanged, on cachette/express: one store per describe, each test
// in its own namespace on it.
const api = { describe, it, beforeAll, afterAll };
describe('memory store', () => {
  const store = memoryStore();
  afterAll(() => store.close());
  httpBehaviourSuite(
    api,
    expressTarget(() => store),
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
    expressTarget(() => store),
  );
});
