// A store written outside the package, as its author would: the contract types and errors from
// cachette/store, the shipped contract suite from cachette/store/testing, run under node:test
// (a runner the repository's own suites do not use). consumer.pack.ts type-checks it with the
// rest and runs it: the suite must pass.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runEnd, StoreClosedError, StoreRefusedError, type Store, type StoreEntry, type StoreOp } from 'cachette/store';
import { describeStoreContract, type ContractTarget, type StoreTestContext } from 'cachette/store/testing';
import type { Equal, Expect } from './type-checks.js';

/** Expiring entries in a Map; every call after close() rejects, as the contract asks. */
class TinyStore implements Store {
  readonly name = 'tiny';
  readonly local = true;
  readonly #map = new Map<string, { value: Uint8Array; until: number }>();
  #closed = false;

  #open() {
    if (this.#closed) throw new StoreClosedError(this.name);
  }
  async get(key: string) {
    this.#open();
    const hit = this.#map.get(key);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }
  async getMany(keys: readonly string[]) {
    this.#open();
    return Promise.all(keys.map((key) => this.get(key)));
  }
  async set(key: string, value: Uint8Array, ttlMs?: number) {
    this.#open();
    this.#map.set(key, { value: value.slice(), until: Date.now() + (ttlMs ?? Infinity) });
  }
  async setMany(entries: readonly StoreEntry[]) {
    this.#open();
    for (const entry of entries) await this.set(entry.key, entry.value, entry.ttlMs);
  }
  async delete(keys: readonly string[]) {
    this.#open();
    let count = 0;
    for (const key of keys) if ((await this.get(key)) && this.#map.delete(key)) count++;
    return count;
  }
  async incr(key: string, by: number, ttlMs?: number) {
    this.#open();
    const held = await this.get(key);
    const digits = held ? new TextDecoder().decode(held) : '0';
    if (!/^-?\d+$/.test(digits)) throw new StoreRefusedError(`tiny: ${key} is not a counter`);
    const until = held ? this.#map.get(key)!.until : Date.now() + (ttlMs ?? Infinity);
    const next = Number(digits) + by;
    this.#map.set(key, { value: new TextEncoder().encode(String(next)), until });
    return next;
  }
  async close() {
    this.#closed = true;
    this.#map.clear();
  }
}

const target: ContractTarget<TinyStore> = {
  name: 'tiny',
  open: () => new TinyStore(),
  additionalTests(context) {
    it('runs its own tests inside the suite, on the store the suite opened', async () => {
      await context.store.set(context.key('own'), new Uint8Array([7]));
      assert.deepEqual(await context.store.getMany([context.key('own')]), [new Uint8Array([7])]);
      const ops: StoreOp[] = [
        { kind: 'get', key: 'a' },
        { kind: 'getMany', keys: ['b'] },
        { kind: 'delete', keys: ['a'] },
      ];
      assert.equal(runEnd(ops, 0), 2, 'two reads are one run');
    });
  },
};
describeStoreContract({ describe, it, beforeAll: before, afterAll: after }, target);

export type ContextChecks = Expect<Equal<StoreTestContext<TinyStore>['store'], TinyStore>>;
