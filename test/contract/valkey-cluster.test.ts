import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { clusterNodes, requireCluster } from '../support/redis-env.ts';
import { storeContract } from './store-contract.ts';

describe.runIf(requireCluster())('valkey cluster', () => {
  storeContract({ describe, it, beforeAll, afterAll }, { name: 'valkey-cluster', open: () => valkeyStore({ cluster: clusterNodes!.split(',') }) });
});
