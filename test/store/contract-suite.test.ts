/**
 * The shipped contract suite itself (cachette/store/testing), driven by a runner of this file's
 * own that runs what the suite declares, in order: a correct store passes every test, a store
 * that breaks one rule fails the test for that rule, the hooks open, clear and close the store,
 * and `additionalTests` run inside the suite on the same store. Plus its small assert.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import type { Store } from '../../src/store/index.ts';
import { deepEqual, equal, rejects } from '../../src/store/testing/assert.ts';
import { describeStoreContract, type ContractTarget, type SuiteApi } from '../../src/store/testing/index.ts';

type Body = () => Promise<void> | void;
interface Declared {
  tests: Array<{ name: string; body: Body }>;
  before: Body[];
  after: Body[];
  describes: string[];
}

/** A runner that records what the suite declares; `run` then runs it as a runner would. */
function recordingRunner(): { runner: SuiteApi; declared: Declared; run(): Promise<Map<string, unknown>> } {
  const declared: Declared = { tests: [], before: [], after: [], describes: [] };
  const runner: SuiteApi = {
    describe: (name, body) => {
      declared.describes.push(name);
      body();
    },
    it: (name, body) => void declared.tests.push({ name, body }),
    beforeAll: (body) => void declared.before.push(body),
    afterAll: (body) => void declared.after.push(body),
  };
  return {
    runner,
    declared,
    async run() {
      const failures = new Map<string, unknown>();
      for (const hook of declared.before) await hook();
      for (const test of declared.tests) {
        try {
          await test.body();
        } catch (error) {
          failures.set(test.name, error);
        }
      }
      for (const hook of declared.after) await hook();
      return failures;
    },
  };
}

/** The memory store with one method replaced. */
function breaking(override: Partial<Store>): Store {
  return Object.assign(memoryStore(), override);
}

async function failuresOf(target: ContractTarget): Promise<Map<string, unknown>> {
  const { runner, run } = recordingRunner();
  describeStoreContract(runner, { minTtlMs: 20, ...target });
  return run();
}

describe('the shipped store contract', () => {
  it('passes a correct store, in one describe named for it, and closes it after the last test', async () => {
    const store = memoryStore();
    let closed = 0;
    const close = store.close.bind(store);
    store.close = async () => {
      closed++;
      await close();
    };
    const { runner, declared, run } = recordingRunner();
    describeStoreContract(runner, { name: 'memory', open: () => store, minTtlMs: 20 });
    assert.deepEqual(declared.describes, ['store contract: memory']);
    assert.ok(declared.tests.length >= 20, `${declared.tests.length} tests`);
    assert.deepEqual([...(await run()).keys()], []);
    // The suite's last test closes it, and closes it again (which must resolve); afterAll leaves it be.
    assert.equal(closed, 2);
    assert.equal(store.size, 0, 'what the suite wrote under its prefix was cleared');
  });

  it('fails a store that breaks a rule, in the test for that rule', async () => {
    const reversed = breaking({});
    const getMany = reversed.getMany.bind(reversed);
    reversed.getMany = async (keys) => (await getMany(keys)).reverse();
    const half = breaking({});
    // A capability declared by half: compareAndDelete without effect (which, once closed, still says so).
    half.compareAndDelete = async (key) => {
      await half.get(key);
      return true;
    };

    const failedReversed = await failuresOf({ name: 'reversed', open: () => reversed });
    assert.ok(failedReversed.has('getMany keeps order and marks holes'), [...failedReversed.keys()].join(', '));
    const failedHalf = await failuresOf({ name: 'half', open: () => half });
    assert.deepEqual([...failedHalf.keys()], ['compareAndDelete deletes only on a matching value']);
    const noIncrCheck = breaking({ incr: async () => 1 });
    assert.ok((await failuresOf({ name: 'no incr', open: () => noIncrCheck })).has('incr creates, adds and subtracts'));
  });

  it('runs additionalTests inside the suite, on the store it opened, with keys it clears', async () => {
    const store = memoryStore();
    const { runner, declared, run } = recordingRunner();
    let seen: Store | undefined;
    describeStoreContract(runner, {
      name: 'with extras',
      open: () => store,
      additionalTests(context) {
        assert.throws(() => context.store, /context\.store is read before the suite opened the store \(read it inside a test\)/);
        context.runner.it('extra', async () => {
          seen = context.store;
          await context.store.set(context.key('extra'), new Uint8Array([1]));
          equal(context.ttlMs, 300);
        });
      },
    });
    const names = declared.tests.map((test) => test.name);
    assert.equal(names.at(-2), 'extra', 'declared after the contract, in the same describe');
    assert.match(names.at(-1) ?? '', /^after close\(\)/, 'the close test stays last: it closes the store the extras use');
    assert.deepEqual([...(await run()).keys()], []);
    assert.equal(seen, store);
    assert.equal(store.size, 0);
  });

  it('leaves nothing to close when the store could not be opened (its error is the suite’s)', async () => {
    const { runner, declared } = recordingRunner();
    describeStoreContract(runner, {
      name: 'unopenable',
      open: () => {
        throw new Error('no such server');
      },
    });
    await assert.rejects(async () => {
      for (const hook of declared.before) await hook();
    }, /no such server/);
    for (const hook of declared.after) await hook();
  });
});

describe('the contract suite’s assert', () => {
  it('compares strictly: holes are not undefined, bytes by value, objects by own keys', async () => {
    deepEqual([1, undefined], [1, undefined]);
    // biome-ignore lint/suspicious/noSparseArray: a hole is the point
    assert.throws(() => deepEqual([1, , 3], [1, undefined, 3]), /expected \[1, undefined, 3\], got \[1, <hole>, 3\]/);
    deepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]));
    assert.throws(() => deepEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])), /values differ/);
    assert.throws(() => deepEqual({ a: 1 }, { a: 1, b: undefined }), /values differ/);
    assert.throws(() => equal('1', 1, 'a number'), /a number: expected 1, got "1"/);
    await rejects(Promise.reject(new Error('no')));
    await assert.rejects(rejects(Promise.resolve(5)), /expected the call to reject: it resolved 5/);
  });
});
