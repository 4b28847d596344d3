import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { httpBehaviourSuite } from './http-behaviour.ts';
import { honoTarget, proxyTarget } from './node-targets.ts';

describe.runIf(requireRedis())('valkey store', () => {
  // One connection for the file: every test gets its own namespace on it.
  let store: Store;
  beforeAll(() => {
    store = valkeyStore(redisUrl!);
  });
  afterAll(() => store.close());
  const api = { describe, it, beforeAll, afterAll };
  httpBehaviourSuite(
    api,
    proxyTarget(() => store),
  );
  httpBehaviourSuite(
    api,
    honoTarget(() => store),
  );
});
