// The store contract on Deno, unchanged: `deno test -A --no-check test/runtimes/deno/store-contract.deno.ts`.
import { describeStoreContract } from '../../../src/store/testing/index.ts';
import { storeTargets } from '../store-targets.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

for (const target of storeTargets(process.env, { tcp: true, files: true })) describeStoreContract(denoRunner(), target);
