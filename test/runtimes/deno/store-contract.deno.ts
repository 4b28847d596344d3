// The store contract on Deno, unchanged: `deno test -A --no-check test/runtimes/deno/store-contract.deno.ts`.
import { storeContract } from '../../contract/store-contract.ts';
import { storeTargets } from '../store-targets.ts';
import { denoSuiteApi } from './suite-api.ts';

for (const target of storeTargets(process.env, { tcp: true, files: true })) storeContract(denoSuiteApi(), target);
