// The store contract inside workerd against every store a Worker reaches: memory, and Upstash
// over loopback HTTP through the bridge when scripts/test started it (KV has its own file).
import { env } from 'cloudflare:test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { storeTargets } from '../runtimes/store-targets.ts';

for (const target of storeTargets({ ...env, CACHETTE_REQUIRE_ALL: env.CACHETTE_REQUIRE_ALL }, { tcp: false })) describeStoreContract({ describe, it, beforeAll, afterAll }, target);
