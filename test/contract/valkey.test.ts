import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { clientOnTheSameServer } from './valkey-client.ts';

describe.runIf(requireRedis())('valkey', () => {
  // A URL: the store's own connection.
  describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'valkey', open: () => valkeyStore<Valkey>(redisUrl!), additionalTests: clientOnTheSameServer });
  // An iovalkey client passed in: the same commands, through the client's queue.
  let client: Valkey | undefined;
  afterAll(() => client?.disconnect());
  describeStoreContract(
    { describe, it, beforeAll, afterAll },
    { name: 'valkey (iovalkey client)', open: () => valkeyStore({ connection: (client = new Valkey(redisUrl!)) }), additionalTests: clientOnTheSameServer },
  );
});
