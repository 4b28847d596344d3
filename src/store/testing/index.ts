/**
 * cachette/store/testing: the store contract suite, as the repository runs it against each of
 * its own stores on every runtime. Runner-neutral: pass vitest's or `bun:test`'s `describe`,
 * `it`, `beforeAll` and `afterAll`, or `denoRunner()` under `deno test`; it imports no `node:`
 * module, so it runs in workerd through vitest's Workers pool too.
 *
 * ```ts
 * import { afterAll, beforeAll, describe, it } from 'vitest';
 * import { describeStoreContract } from 'cachette/store/testing';
 *
 * describeStoreContract({ describe, it, beforeAll, afterAll }, {
 *   name: 'my-store',
 *   open: () => myStore(),
 *   additionalTests: ({ runner, store, key }) => {
 *     runner.it('keeps what is particular to it', async () => { … });
 *   },
 * });
 * ```
 */
export { describeStoreContract, type ContractTarget, type StoreTestContext } from './contract.ts';
export { denoRunner } from './deno-runner.ts';
export type { SuiteApi } from './suite-api.ts';
