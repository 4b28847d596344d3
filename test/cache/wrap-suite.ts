import assert from 'node:assert/strict';
import { memoryStore } from '../../adapters/memory/index.ts';
import { MAX_DEPTH } from '../../src/cache/argument-key.ts';
import { decodeEnvelope } from '../../src/codec/envelope.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/** A function that counts its calls and answers with them, so a cached answer is visible. */
function counted<A extends unknown[]>(name: string) {
  let calls = 0;
  const fns = {
    [name]: async (...args: A) => {
      calls++;
      return { call: calls, args };
    },
  };
  return { fn: fns[name]!, calls: () => calls };
}

/**
 * `cache.wrap`: calls through getOrSet, the stable argument encoding behind default keys, key
 * overrides and option checks. Runner-neutral: vitest (Node), bun test and Deno.test run it.
 */
export function wrapSuite(t: SuiteApi): void {
  t.describe('cache.wrap', () => {
    let store: Store;
    let cache: Cache;
    t.beforeAll(() => {
      store = memoryStore();
      cache = createCache({ store, prefix: 'wrap' });
    });
    t.afterAll(async () => {
      await cache.close();
      await store.close();
    });

    t.it('returns a function with the same parameters whose repeated calls are answered from the cache', async () => {
      const { fn, calls } = counted<[string, number]>('lookupA');
      const wrapped = cache.wrap(fn);
      const first = await wrapped('a', 1);
      assert.deepEqual(first, { call: 1, args: ['a', 1] });
      assert.deepEqual(await wrapped('a', 1), first);
      assert.deepEqual(await wrapped('a', 2), { call: 2, args: ['a', 2] });
      assert.equal(calls(), 2);
      assert.deepEqual(await cache.get('lookupA("a",1)'), first, 'stored under the name and the encoded arguments');
    });

    t.it('runs the function once for concurrent calls with equal arguments', async () => {
      let calls = 0;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = cache.wrap(async function slowReport(id: number) {
        calls++;
        await gate;
        return `report ${id}`;
      });
      const pending = Array.from({ length: 20 }, () => slow(7));
      release();
      assert.deepEqual(await Promise.all(pending), Array(20).fill('report 7'));
      assert.equal(calls, 1);
    });

    t.it('passes this through to the function', async () => {
      const wrapped = cache.wrap(async function greeting(this: { name: string }, punctuation: string) {
        return `hello ${this.name}${punctuation}`;
      });
      assert.equal(await wrapped.call({ name: 'ada' }, '!'), 'hello ada!');
    });

    t.it('encodes arguments stably: object key order, trailing undefined, -0 and Map/Set order do not matter', async () => {
      const { fn } = counted<unknown[]>('stable');
      const wrapped = cache.wrap(fn);
      const pairs: Array<[unknown[], unknown[]]> = [
        [[{ a: 1, b: { c: 2, d: 3 } }], [{ b: { d: 3, c: 2 }, a: 1 }]],
        [[1], [1, undefined]],
        [[{ a: 1, gone: undefined }], [{ a: 1 }]],
        [[0], [-0]],
        [
          [
            new Map([
              ['x', 1],
              ['y', 2],
            ]),
          ],
          [
            new Map([
              ['y', 2],
              ['x', 1],
            ]),
          ],
        ],
        [[new Set([3, 1, 2])], [new Set([2, 3, 1])]],
        [[new Date('2026-01-02T03:04:05Z')], [new Date(Date.UTC(2026, 0, 2, 3, 4, 5))]],
        [[Object.assign(Object.create(null), { z: 1 })], [{ z: 1 }]],
      ];
      for (const [i, [a, b]] of pairs.entries()) assert.equal(await wrapped.keyFor(...a), await wrapped.keyFor(...b), `pair ${i}`);
    });

    t.it('keeps apart what is different data: undefined and null, BigInt and number, strings and numbers, types of bytes', async () => {
      const { fn } = counted<unknown[]>('distinct');
      const wrapped = cache.wrap(fn);
      const groups: unknown[][] = [
        [undefined, null],
        [1n, 1, '1', true],
        [[1, undefined], [1, null], [1]],
        [NaN, Infinity, -Infinity, 'NaN'],
        [new Uint8Array([1, 2]), new Int8Array([1, 2]), new Uint8Array([1, 2, 0]), [1, 2]],
        [new Date(0), 0, new Date(Number.NaN)],
        [{ a: 'b,c' }, { a: 'b', c: undefined }, { 'a":"b': 'c' }],
        [['a,b'], ['a', 'b']],
        [new Map([[1, 'a']]), new Map([['1', 'a']]), { 1: 'a' }],
        [/a/g, /a/i, 'a'],
        [new URL('https://example.com/a?b=1'), 'https://example.com/a?b=1'],
      ];
      for (const group of groups) {
        const keys = await Promise.all(group.map((value) => wrapped.keyFor(value)));
        assert.equal(new Set(keys).size, group.length, `distinct keys for ${keys.join(' | ')}`);
      }
      // Arguments are positional: (a, b) is not ([a, b]) and not (a) with a different second.
      const positional = await Promise.all([wrapped.keyFor('a', 'b'), wrapped.keyFor(['a', 'b']), wrapped.keyFor('a,b')]);
      assert.equal(new Set(positional).size, 3);
    });

    t.it('encodes class instances through toJSON and names the class', async () => {
      class Money {
        constructor(readonly cents: number) {}
        toJSON() {
          return { cents: this.cents };
        }
      }
      const wrapped = cache.wrap(async function price(amount: Money) {
        return amount.cents;
      });
      assert.equal(await wrapped.keyFor(new Money(5)), 'price(Money({"cents":5}))');
      assert.equal(await wrapped(new Money(5)), 5);
    });

    t.it('refuses arguments without a stable encoding, naming the path: cycles, functions, symbols, promises, plain class instances, depth', async () => {
      const wrapped = cache.wrap(async function refuse(...args: unknown[]) {
        return args.length;
      });
      const cyclic: Record<string, unknown> = { a: { b: {} } };
      (cyclic.a as { b: Record<string, unknown> }).b.back = cyclic;
      class Connection {}
      let deep: unknown = 'bottom';
      for (let i = 0; i <= MAX_DEPTH; i++) deep = [deep];
      const cases: Array<[unknown, RegExp]> = [
        [cyclic, /args\[0\]\.a\.b\.back is a circular reference/],
        [{ onDone: () => {} }, /args\[0\]\.onDone is a function/],
        [Symbol('s'), /args\[0\] is a symbol/],
        [{ [Symbol('s')]: 1 }, /args\[0\] is an object with symbol keys/],
        [Promise.resolve(1), /args\[0\] is a promise/],
        [new Connection(), /args\[0\] is an instance of Connection/],
        [deep, new RegExp(`nested deeper than ${MAX_DEPTH} levels`)],
      ];
      for (const [value, message] of cases) {
        await assert.rejects(wrapped(value), (error: unknown) => error instanceof TypeError && message.test(error.message) && /refuse/.test(error.message) && /key\(\.\.\.args\)/.test(error.message));
      }
      // A shared (not circular) reference is fine.
      const shared = { x: 1 };
      assert.equal(await wrapped(shared, [shared]), 2);
    });

    t.it('replaces long argument encodings by a SHA-256 digest, keeping keys short and distinct', async () => {
      const { fn, calls } = counted<[string]>('search');
      const wrapped = cache.wrap(fn);
      const long = 'x'.repeat(10_000);
      const key = await wrapped.keyFor(long);
      assert.match(key, /^search\(#sha256=[0-9a-f]{64}\)$/);
      assert.notEqual(await wrapped.keyFor(`${long}y`), key);
      // The bound is in UTF-8 bytes (Workers KV counts bytes): 100 euro signs are 300 of them.
      assert.match(wrapped.keyFor('€'.repeat(100)), /^search\(#sha256=[0-9a-f]{64}\)$/);
      assert.equal(wrapped.keyFor('e'.repeat(100)), `search("${'e'.repeat(100)}")`);
      await wrapped(long);
      await wrapped(long);
      assert.equal(calls(), 1);
      assert.notEqual(await cache.get(key), undefined);
    });

    t.it('uses a key(...args) override as it is, and a name in place of the function name', async () => {
      const { fn, calls } = counted<[string]>('userById');
      const byKey = cache.wrap(fn, { key: (id) => `user:${id}` });
      await byKey('42');
      assert.equal(await byKey.keyFor('42'), 'user:42');
      assert.notEqual(await cache.get('user:42'), undefined);
      const named = cache.wrap(fn, { name: 'users.find' });
      assert.equal(await named.keyFor('42'), 'users.find("42")');
      await named('42');
      assert.equal(calls(), 2);
      const badKey = cache.wrap(fn, { key: () => '' });
      await assert.rejects(badKey('1'), /key\(\.\.\.args\) must return a non-empty string/);
    });

    t.it('deletes the entry of one call', async () => {
      const { fn, calls } = counted<[number]>('deletable');
      const wrapped = cache.wrap(fn);
      await wrapped(1);
      await wrapped(2);
      assert.equal(await wrapped.delete(1), true);
      assert.equal(await wrapped.delete(1), false);
      await wrapped(1);
      await wrapped(2);
      assert.equal(calls(), 3);
    });

    t.it('hands ttl and grace to getOrSet', async () => {
      const wrapped = cache.wrap(
        async function timed() {
          return 'v';
        },
        { ttl: '1m', grace: '5m' },
      );
      await wrapped();
      // The engine may write after answering: wait for the entry rather than for a fixed time.
      const key = `wrap:${wrapped.keyFor()}`;
      let raw = await store.get(key);
      for (let i = 0; raw === undefined && i < 1000; i++) raw = await new Promise<void>((resolve) => setImmediate(resolve)).then(() => store.get(key));
      assert.ok(raw, 'stored');
      const envelope = decodeEnvelope(raw);
      assert.equal(envelope.freshFor, 60_000);
      assert.equal(envelope.staleFor, 300_000);
    });

    t.it('does not cache a failure: every waiter gets it and the next call runs again', async () => {
      let calls = 0;
      const flaky = cache.wrap(async function flaky() {
        calls++;
        if (calls === 1) throw new Error('origin down');
        return 'ok';
      });
      await assert.rejects(Promise.all([flaky(), flaky()]), /origin down/);
      assert.equal(await flaky(), 'ok');
      assert.equal(calls, 2);
    });

    t.it('accepts tags (an array, or a function of the arguments) and checks what the function returns', async () => {
      const { fn } = counted<[string]>('tagged');
      const seen: string[][] = [];
      const withTags = cache.wrap(fn, {
        tags: (id) => {
          seen.push([id]);
          return [`user:${id}`];
        },
      });
      await withTags('9');
      assert.deepEqual(seen, [['9']]);
      assert.deepEqual((await cache.wrap(fn, { tags: ['users'], name: 'tagged2' })('1')).args, ['1']);
      const broken = cache.wrap(fn, { name: 'tagged3', tags: (() => 'users') as unknown as () => string[] });
      await assert.rejects(broken('1'), /tags\(\.\.\.args\) must return an array of strings/);
    });

    t.it('checks its options when wrapping, naming the bad one', () => {
      const fn = async (x: number) => x;
      assert.throws(() => cache.wrap('nope' as unknown as () => Promise<void>), /wrap\(fn\) needs a function/);
      assert.throws(() => cache.wrap(async () => 1), /has no name to build keys from; pass a "name" or a "key" option/);
      assert.throws(
        () => cache.wrap(fn, { ttl: 'soon' as unknown as '1s' }),
        (e: unknown) => e instanceof RangeError && /cache\.wrap\(\): ttl/.test(e.message),
      );
      assert.throws(
        () => cache.wrap(fn, { grace: -1 }),
        (e: unknown) => e instanceof RangeError && /cache\.wrap\(\): grace/.test(e.message),
      );
      assert.throws(() => cache.wrap(fn, { key: 'k' as unknown as () => string }), /"key" must be a function/);
      assert.throws(() => cache.wrap(fn, { name: '' }), /"name" must be a non-empty string/);
      assert.throws(() => cache.wrap(fn, { tags: 'a' as unknown as string[] }), /"tags" must be an array of strings/);
      assert.throws(() => cache.wrap(fn, 5 as unknown as object), /options must be an object/);
      // An anonymous function is fine with a name or a key.
      assert.equal(typeof cache.wrap(async () => 1, { name: 'one' }), 'function');
    });
  });
}
