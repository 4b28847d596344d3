/**
 * cachette/testing's faultyStore is transparent when no fault is in place: the store contract
 * suite passes through it over the memory store and over a real redis-server, so a test that
 * wraps its store to inject faults later tests the same store it runs in production.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { faultyStore } from '../../src/testing/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'faultyStore(memory), no fault', open: () => faultyStore(memoryStore()) });

describe.runIf(requireRedis())('faultyStore over valkey', () => {
  describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'faultyStore(valkey), no fault', open: () => faultyStore(valkeyStore(redisUrl!)) });
});
