import type { Cluster } from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { clientOnTheSameServer } from './valkey-client.ts';

describe.runIf(requireCluster())('valkey cluster', () => {
  describeStoreContract(
    { describe, it, beforeAll, afterAll },
    {
      name: 'valkey-cluster',
      open: () => valkeyStore<Cluster>({ cluster: clusterNodes!.split(',') }),
      additionalTests: clientOnTheSameServer,
    },
  );
});
