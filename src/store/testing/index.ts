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
 *   // Read context.store inside a test: the suite opens the store once it starts running.
 *   additionalTests: (context) => {
 *     it('keeps what is particular to it', async () => { await context.store.set(context.key('mine'), bytes); … });
 *   },
 * });
 * ```
 */
export { describeStoreContract, type ContractTarget, type StoreTestContext } from './contract.ts';
export { denoRunner } from './deno-runner.ts';
export type { SuiteApi } from './suite-api.ts';
