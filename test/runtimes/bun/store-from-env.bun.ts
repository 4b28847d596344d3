// cachette/bun's storeFromEnv: `bun test ./test/runtimes/bun/store-from-env.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { storeFromEnv } from '../../../runtimes/bun/index.ts';
import { VALKEY_CLIENT_ON_BUN } from '../../../runtimes/shared/valkey-client.ts';
import { storeFromEnvSuite } from '../store-from-env-suite.ts';

// Bun opens Valkey with the client runtimes/shared/valkey-client.ts declares as its default.
const bunClient = VALKEY_CLIENT_ON_BUN === 'bun-redis';
storeFromEnvSuite({ describe, it, beforeAll, afterAll }, 'bun', storeFromEnv, {
  valkeyStoreName: bunClient ? 'bun-redis' : 'valkey',
  valkeyLineSuffix: bunClient ? ", through Bun's built-in RedisClient" : '',
});
