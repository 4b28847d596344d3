import { afterAll, beforeAll, describe, it } from 'vitest';
import { storeFromEnv } from '../../runtimes/node/index.ts';
import { storeFromEnvSuite } from './store-from-env-suite.ts';

// The same suite Bun and Deno run, on Node (cachette/node), where Valkey goes through iovalkey.
storeFromEnvSuite({ describe, it, beforeAll, afterAll }, 'node', storeFromEnv, { valkeyStoreName: 'valkey', valkeyLineSuffix: '' });
