// The store contract on Bun, unchanged: `bun test ./test/runtimes/bun/store-contract.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { describeStoreContract } from '../../../src/store/testing/index.ts';
import { storeTargets } from '../store-targets.ts';

for (const target of storeTargets(process.env, { tcp: true, files: true })) describeStoreContract({ describe, it, beforeAll, afterAll }, target);
