import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/index.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';
import { httpBehaviourSuite } from './http-behaviour.ts';
import { honoTarget, proxyTarget } from './node-targets.ts';

// The HTTP behaviour suite, unchanged, over the cluster store: the proxy and the Hono middleware.
describe.runIf(requireCluster())('valkey cluster store', () => {
  // One cluster client for the file: every test gets its own namespace on it.
  let store: Store;
  beforeAll(() => {
    store = valkeyStore({ cluster: clusterNodes!.split(',') });
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
