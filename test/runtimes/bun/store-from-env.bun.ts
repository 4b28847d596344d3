// cachette/bun's storeFromEnv: `bun test ./test/runtimes/bun/store-from-env.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { storeFromEnv } from '../../../runtimes/bun/index.ts';
import { storeFromEnvSuite } from '../store-from-env-suite.ts';

storeFromEnvSuite({ describe, it, beforeAll, afterAll }, 'bun', storeFromEnv, { valkeyStoreName: 'bun-redis', valkeyLineSuffix: ", through Bun's built-in RedisClient" });
