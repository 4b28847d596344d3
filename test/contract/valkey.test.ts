import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { storeContract } from './store-contract.ts';

describe.runIf(requireRedis())('valkey', () => {
  storeContract({ describe, it, beforeAll, afterAll }, { name: 'valkey', open: () => valkeyStore(redisUrl!) });
});
