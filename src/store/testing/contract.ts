/**
 * The store contract (docs/architecture.md#the-store-contract), written once and run unchanged against every adapter of the
 * repository, on every runtime where it works, and shipped as `cachette/store/testing` for
 * people who write a store: a store is done when it passes unchanged. Runner-neutral (see
 * {@link SuiteApi}); keys carry a per-run prefix, so parallel files sharing one server never
 * collide.
 */
import { StoreClosedError } from '../errors.ts';
import { CREATED_AT_OFFSET, FRESH_FOR_OFFSET, HEADER_BYTES, MAGIC, SIZE_OFFSET, STALE_FOR_OFFSET, VERSION, VERSION_OFFSET } from '../layout/envelope.ts';
import { type HeadedText, TextEntry } from '../text-entry.ts';
import type { Store, StoreOp } from '../types.ts';
import { deepEqual, equal, ok, rejects, rejectsWith, sameBytes } from './assert.ts';
import { bytes, sleep, text, type SuiteApi } from './suite-api.ts';

/** The store under test (of type `S`, so that additional tests see its own API), and how the suite treats it. */
export interface ContractTarget<S extends Store = Store> {
  /** Shown in the test titles. */
  name: string;
  /**
   * Opens the store; called once, before the suite's first test. The suite's last test closes
   * it (and checks that every call then rejects with a StoreClosedError); when that test does
   * not run, the suite closes it after its last.
   */
  open(): Promise<S> | S;
  /** Smallest TTL the store honours, in ms (Workers KV: 60 s); the expiry tests wait a multiple of it. Default 300. */
  minTtlMs?: number;
  /**
   * Declares tests of what is particular to this store; they run inside the suite, after the
   * contract's own tests, on the same store (unstorage's driver suite has the same hook).
   */
  additionalTests?(context: StoreTestContext<S>): void;
}

/** What {@link ContractTarget.additionalTests} gets to write its tests with. */
export interface StoreTestContext<S extends Store = Store> {
  /** The store under test. Opened before the first test runs: read it inside a test, not while declaring one. */
  readonly store: S;
  /** `name` under this run's key prefix, which the suite clears (where the store can) before it closes the store. */
  key(name: string): string;
  /** The TTL the contract's expiry tests use, in ms. */
  readonly ttlMs: number;
  /** The runner the suite was given, for additional tests that run on every runner too. */
  readonly runner: SuiteApi;
}

/**
 * Declares the store contract as one `describe` of `runner`:
 *
 * ```ts
 * import { afterAll, beforeAll, describe, it } from 'vitest';
 * import { describeStoreContract } from 'cachette/store/testing';
 *
 * describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'my-store', open: () => myStore() });
 * ```
 *
 * Optional capabilities a store leaves out are checked to be really absent, not half there.
 */
export function describeStoreContract<S extends Store>(runner: SuiteApi, target: ContractTarget<S>): void {
  runner.describe(`store contract: ${target.name}`, () => {
    let store: S;
    let closed = false;
    const run = `contract:${target.name}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}:`;
    const k = (name: string) => run + name;
    // Long enough that a loaded CI machine never sees a value expire between two calls.
    const ttl = target.minTtlMs ?? 300;

    runner.beforeAll(async () => {
      store = await target.open();
    });
    runner.afterAll(async () => {
      // A store that failed to open has nothing to clear or close; its error is the suite's.
      if (store === undefined || closed) return;
      await store.clear?.(run);
      await store.close();
    });

    runner.it('round-trips binary values, every byte value included', async () => {
      const all = new Uint8Array(256).map((_, i) => i);
      await store.set(k('bin'), all);
      deepEqual([...((await store.get(k('bin'))) ?? [])], [...all]);
      const empty = new Uint8Array(0);
      await store.set(k('empty'), empty);
      const got = await store.get(k('empty'));
      ok(got instanceof Uint8Array, 'an empty value is a value, not a miss');
      equal(got.length, 0);
    });

    runner.it('returns undefined for an absent key', async () => {
      equal(await store.get(k('absent')), undefined);
    });

    runner.it('overwrites on set', async () => {
      await store.set(k('over'), bytes('one'));
      await store.set(k('over'), bytes('two'));
      equal(text(await store.get(k('over'))), 'two');
    });

    runner.it('is not changed by a caller reusing its buffer', async () => {
      const buf = bytes('abc');
      await store.set(k('reuse'), buf);
      buf[0] = 0x7a;
      equal(text(await store.get(k('reuse'))), 'abc');
    });

    runner.it('expires values after their TTL', async () => {
      await store.set(k('ttl'), bytes('v'), ttl);
      await store.set(k('forever'), bytes('f'));
      equal(text(await store.get(k('ttl'))), 'v');
      await sleep(ttl * 2 + 20);
      equal(await store.get(k('ttl')), undefined);
      equal(text(await store.get(k('forever'))), 'f');
    });

    runner.it('getMany keeps order and marks holes', async () => {
      await store.set(k('m1'), bytes('1'));
      await store.set(k('m3'), bytes('3'));
      const got = await store.getMany([k('m1'), k('m2'), k('m3'), k('m1')]);
      deepEqual(got.map(text), ['1', undefined, '3', '1']);
      deepEqual(await store.getMany([]), []);
    });

    runner.it('setMany stores every entry, each with its own TTL', async () => {
      await store.setMany([
        { key: k('s1'), value: bytes('a') },
        { key: k('s2'), value: bytes('b'), ttlMs: ttl },
        { key: k('s3'), value: new Uint8Array([0, 255, 0]) },
      ]);
      deepEqual(
        (await store.getMany([k('s1'), k('s2'), k('s3')])).map((b) => (b ? [...b] : b)),
        [[97], [98], [0, 255, 0]],
      );
      await sleep(ttl * 2 + 20);
      deepEqual((await store.getMany([k('s1'), k('s2')])).map(text), ['a', undefined]);
      await store.setMany([]);
    });

    runner.it('incr creates, adds and subtracts', async () => {
      equal(await store.incr(k('c'), 1), 1);
      equal(await store.incr(k('c'), 41), 42);
      equal(await store.incr(k('c'), -50), -8);
      // Counters are plain decimal integers, readable as bytes.
      equal(text(await store.get(k('c'))), '-8');
    });

    runner.it('incr sets the TTL only when it creates the counter', async () => {
      equal(await store.incr(k('ct'), 5, ttl), 5);
      equal(await store.incr(k('ct'), 1, 60_000), 6);
      await sleep(ttl * 2 + 20);
      equal(await store.get(k('ct')), undefined, 'the first TTL still applies');
      await store.set(k('cn'), bytes('10'));
      equal(await store.incr(k('cn'), 2, ttl), 12);
      await sleep(ttl * 2 + 20);
      equal(text(await store.get(k('cn'))), '12', 'an existing counter keeps having no TTL');
    });

    runner.it('incr on a value that is not an integer rejects and changes nothing', async () => {
      await store.set(k('notint'), bytes('abc'));
      await rejects(store.incr(k('notint'), 1));
      equal(text(await store.get(k('notint'))), 'abc');
    });

    runner.it('delete counts only keys that existed', async () => {
      await store.set(k('d1'), bytes('1'));
      await store.set(k('d2'), bytes('2'));
      equal(await store.delete([k('d1'), k('d2'), k('d3')]), 2);
      equal(await store.get(k('d1')), undefined);
      equal(await store.delete([k('d1')]), 0);
      equal(await store.delete([]), 0);
    });

    runner.it('setEntry stores one entry as set does, a text entry (bytes made on demand) included', async () => {
      if (!store.setEntry) return assertNoCapability(store, 'setEntry');
      await store.setEntry({ key: k('entry'), value: bytes('plain'), ttlMs: 60_000 });
      equal(text(await store.get(k('entry'))), 'plain');
      // A head of three bytes, then text as UTF-8 (src/store/text-entry.ts): the store may write it either way.
      const content = '{"name":"Zoë 🙂"}';
      const made = new Uint8Array([1, 2, 3, ...new TextEncoder().encode(content)]);
      const parts: HeadedText = {
        headLength: 3,
        text: content,
        size: made.length,
        writeHead: (out, at) => out.set(made.subarray(0, 3), at),
        bytes: () => made,
      };
      await store.setEntry(new TextEntry(k('entry'), parts, 60_000));
      deepEqual([...((await store.get(k('entry'))) ?? [])], [...made], 'a later setEntry replaces the value');
    });

    runner.it('add sets only when absent', async () => {
      if (!store.add) return assertNoCapability(store, 'add');
      equal(await store.add(k('lease'), bytes('token-1'), 60_000), true);
      equal(await store.add(k('lease'), bytes('token-2'), 60_000), false);
      equal(text(await store.get(k('lease'))), 'token-1');
    });

    runner.it('add succeeds again once the previous value expired', async () => {
      if (!store.add) return assertNoCapability(store, 'add');
      equal(await store.add(k('lease2'), bytes('a'), ttl), true);
      await sleep(ttl * 2 + 20);
      equal(await store.add(k('lease2'), bytes('b'), ttl), true);
    });

    runner.it('compareAndDelete deletes only on a matching value', async () => {
      if (!store.compareAndDelete) return assertNoCapability(store, 'compareAndDelete');
      await store.set(k('cad'), bytes('mine'));
      equal(await store.compareAndDelete(k('cad'), bytes('theirs')), false);
      equal(text(await store.get(k('cad'))), 'mine');
      equal(await store.compareAndDelete(k('cad'), bytes('mine')), true);
      equal(await store.get(k('cad')), undefined);
      equal(await store.compareAndDelete(k('cad'), bytes('mine')), false);
    });

    runner.it('holds a 1 MiB value intact', async () => {
      const big = new Uint8Array(1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
      await store.set(k('big'), big);
      const got = await store.get(k('big'));
      equal(got?.length, big.length);
      ok(got && sameBytes(got, big), 'the 1 MiB value came back intact');
    });

    runner.it('handles many keys in one batch', async () => {
      const entries = Array.from({ length: 1000 }, (_, i) => ({ key: k(`many:${i}`), value: bytes(String(i)) }));
      await store.setMany(entries);
      const got = await store.getMany(entries.map((e) => e.key));
      deepEqual(
        got.map(text),
        entries.map((_, i) => String(i)),
      );
      equal(await store.delete(entries.map((e) => e.key)), 1000);
    });

    runner.it('keys may hold any UTF-8 and glob characters', async () => {
      const odd = k('ключ/*?[x]\\ 🗝');
      await store.set(odd, bytes('ok'));
      equal(text(await store.get(odd)), 'ok');
      equal(await store.get(k('ключ/x[x]\\ 🗝')), undefined);
    });

    runner.it('clear removes exactly the keys under a prefix', async () => {
      if (!store.clear) return assertNoCapability(store, 'clear');
      await store.set(k('cl:a'), bytes('a'));
      await store.set(k('cl:b'), bytes('b'));
      await store.set(k('cl*'), bytes('star'));
      await store.set(k('keep'), bytes('k'));
      await store.clear(k('cl:'));
      deepEqual((await store.getMany([k('cl:a'), k('cl:b'), k('cl*'), k('keep')])).map(text), [undefined, undefined, 'star', 'k']);
    });

    runner.it('keys walks exactly the keys under a prefix, page by page, every one of them', async () => {
      if (!store.keys) return assertNoCapability(store, 'keys');
      // More keys than one step of any store here answers (a SCAN COUNT, a batch of rows).
      const many = Array.from({ length: 600 }, (_, i) => k(`ks:${i}`));
      await store.setMany([...many, k('ks:*?[g]')].map((key) => ({ key, value: bytes('v') })));
      await store.set(k('ks'), bytes('not under the prefix'));
      await store.set(k('kt:0'), bytes('nor this'));
      const seen = new Set<string>();
      let cursor: string | undefined;
      let steps = 0;
      do {
        const page = await store.keys(k('ks:'), cursor);
        for (const key of page.keys) seen.add(key);
        cursor = page.cursor;
        ok(++steps < 10_000, 'the walk ends');
      } while (cursor !== undefined);
      deepEqual([...seen].sort(), [...many, k('ks:*?[g]')].sort());
    });

    const tagOf = (name: string) => ({ generation: k(`{tag:${name}}:gen`), fence: k(`{tag:${name}}:fence`), soft: k(`{tag:${name}}:soft`) });
    const EPOCH = 2 ** 40 + 7;

    runner.it('readWithGenerations reads entries and tags at once, creating a missing generation at the epoch', async () => {
      if (!store.readWithGenerations) return assertNoCapability(store, 'readWithGenerations');
      await store.set(k('rg:a'), bytes('A'));
      const first = await store.readWithGenerations({ keys: [k('rg:a'), k('rg:none')], tags: [tagOf('rg1'), tagOf('rg2')], epoch: EPOCH });
      deepEqual(
        first.values.map((v) => (v === 'unchanged' ? v : text(v))),
        ['A', undefined],
      );
      deepEqual(first.tags, [
        { generation: EPOCH, fenced: false },
        { generation: EPOCH, fenced: false },
      ]);
      // The counter now exists: another epoch does not replace it.
      const again = await store.readWithGenerations({ keys: [], tags: [tagOf('rg1')], epoch: EPOCH + 1000 });
      deepEqual(again.tags, [{ generation: EPOCH, fenced: false }]);
      equal(text(await store.get(tagOf('rg1').generation)), String(EPOCH));
    });

    runner.it('readWithGenerations answers "unchanged" only while the stored value starts with the known prefix', async () => {
      if (!store.readWithGenerations) return assertNoCapability(store, 'readWithGenerations');
      const value = new Uint8Array(100).map((_, i) => (i * 7) & 0xff);
      await store.set(k('kp'), value);
      const known = value.slice(0, 36);
      const same = await store.readWithGenerations({ keys: [k('kp'), k('kp')], knownPrefixes: [known, undefined], tags: [], epoch: EPOCH });
      equal(same.values[0], 'unchanged');
      deepEqual([...((same.values[1] as Uint8Array | undefined) ?? [])], [...value]);
      const changed = value.slice();
      changed[20] = changed[20]! ^ 0xff;
      await store.set(k('kp'), changed);
      const after = await store.readWithGenerations({ keys: [k('kp')], knownPrefixes: [known], tags: [], epoch: EPOCH });
      deepEqual([...((after.values[0] as Uint8Array | undefined) ?? [])], [...changed]);
      await store.delete([k('kp')]);
      const gone = await store.readWithGenerations({ keys: [k('kp')], knownPrefixes: [known], tags: [], epoch: EPOCH });
      equal(gone.values[0], undefined);
    });

    runner.it('synchronous reads (getSync, getManySync, readWithGenerationsSync) come together, on a local store, and answer what the promises do', async () => {
      if (!store.getSync) {
        assertNoCapability(store, 'getManySync');
        return assertNoCapability(store, 'readWithGenerationsSync');
      }
      equal(store.local, true, 'synchronous reads are for local stores');
      equal(typeof store.getManySync, 'function');
      equal(typeof store.readWithGenerationsSync, 'function');
      await store.set(k('sync:a'), bytes('A'));
      equal(text(store.getSync(k('sync:a'))), 'A');
      equal(store.getSync(k('sync:none')), undefined);
      deepEqual(store.getManySync!([k('sync:a'), k('sync:none')]).map(text), ['A', undefined]);
      const read = { keys: [k('sync:a')], tags: [tagOf('sync')], epoch: EPOCH };
      deepEqual(store.readWithGenerationsSync!(read), await store.readWithGenerations!(read));
      // A write issued just before, and not awaited, is seen: the engine relies on it.
      const written = store.set(k('sync:a'), bytes('B'));
      equal(text(store.getSync(k('sync:a'))), 'B');
      await written;
      const deleted = store.delete([k('sync:a')]);
      equal(store.getSync(k('sync:a')), undefined);
      await deleted;
    });

    runner.it('writeGenerations: bump increments, hold fences and bumps, commit bumps and unfences, release only unfences', async () => {
      if (!store.writeGenerations || !store.readWithGenerations) return assertNoCapability(store, 'writeGenerations');
      const tag = tagOf('wg');
      const state = async () => (await store.readWithGenerations!({ keys: [], tags: [tag], epoch: EPOCH })).tags[0];
      await store.writeGenerations({ action: 'bump', tags: [tag], epoch: EPOCH });
      deepEqual(await state(), { generation: EPOCH, fenced: false }, 'a bump of a missing counter starts it at the epoch');
      await store.writeGenerations({ action: 'bump', tags: [tag], epoch: EPOCH });
      deepEqual(await state(), { generation: EPOCH + 1, fenced: false });
      await store.writeGenerations({ action: 'hold', tags: [tag], epoch: EPOCH, token: 'w1', ttlMs: 60_000 });
      deepEqual(await state(), { generation: EPOCH + 2, fenced: true });
      // A second writer on the same tag is not blocked, and the first one's commit leaves it fenced.
      await store.writeGenerations({ action: 'hold', tags: [tag], epoch: EPOCH, token: 'w2', ttlMs: 60_000 });
      await store.writeGenerations({ action: 'commit', tags: [tag], epoch: EPOCH, token: 'w1' });
      deepEqual(await state(), { generation: EPOCH + 4, fenced: true });
      await store.writeGenerations({ action: 'release', tags: [tag], epoch: EPOCH, token: 'w2' });
      deepEqual(await state(), { generation: EPOCH + 4, fenced: false }, 'a release (rollback) does not bump');
      // Releasing a token that is not held changes nothing.
      await store.writeGenerations({ action: 'release', tags: [tag], epoch: EPOCH, token: 'nobody' });
      deepEqual(await state(), { generation: EPOCH + 4, fenced: false });
    });

    runner.it('writeGenerations soft: a run of soft moves is read as such until a hard move retires it', async () => {
      if (!store.writeGenerations || !store.readWithGenerations) return assertNoCapability(store, 'writeGenerations');
      const tag = tagOf('soft');
      const state = async () => (await store.readWithGenerations!({ keys: [], tags: [tag], epoch: EPOCH })).tags[0];
      await store.writeGenerations({ action: 'soft', tags: [tag], epoch: EPOCH, now: 1000 });
      deepEqual(await state(), { generation: EPOCH, fenced: false }, 'a soft move of a missing counter starts it at the epoch, softly moving nothing');
      await store.writeGenerations({ action: 'soft', tags: [tag], epoch: EPOCH, now: 2000 });
      deepEqual(await state(), { generation: EPOCH + 1, fenced: false, soft: { from: EPOCH, at: 2000 } });
      await store.writeGenerations({ action: 'soft', tags: [tag], epoch: EPOCH, now: 3000 });
      deepEqual(await state(), { generation: EPOCH + 2, fenced: false, soft: { from: EPOCH, at: 3000 } }, 'a second soft move extends the run');
      await store.writeGenerations({ action: 'bump', tags: [tag], epoch: EPOCH });
      deepEqual(await state(), { generation: EPOCH + 3, fenced: false }, 'a hard move retires the run');
      await store.writeGenerations({ action: 'soft', tags: [tag], epoch: EPOCH, now: 4000 });
      deepEqual(await state(), { generation: EPOCH + 4, fenced: false, soft: { from: EPOCH + 3, at: 4000 } }, 'a new run starts after the hard move');
      await store.writeGenerations({ action: 'hold', tags: [tag], epoch: EPOCH, token: 'w', ttlMs: 60_000 });
      deepEqual(await state(), { generation: EPOCH + 5, fenced: true }, 'a fenced write is a hard move');
      await store.writeGenerations({ action: 'commit', tags: [tag], epoch: EPOCH, token: 'w' });
      await store.set(tag.soft, bytes('garbage'));
      await store.writeGenerations({ action: 'soft', tags: [tag], epoch: EPOCH, now: 5000 });
      deepEqual(await state(), { generation: EPOCH + 7, fenced: false, soft: { from: EPOCH + 6, at: 5000 } }, 'an unreadable record is replaced');
    });

    runner.it('expireEntries turns fresh envelopes stale at the given time, keeping their grace, and leaves everything else alone', async () => {
      if (!store.expireEntries) return assertNoCapability(store, 'expireEntries');
      const now = 1_000_000;
      const envelope = (createdAt: number, freshFor: number, staleFor: number) => {
        const value = new Uint8Array(40);
        const view = new DataView(value.buffer);
        value[0] = MAGIC;
        value[VERSION_OFFSET] = VERSION;
        view.setFloat64(CREATED_AT_OFFSET, createdAt);
        view.setFloat64(FRESH_FOR_OFFSET, freshFor);
        view.setFloat64(STALE_FOR_OFFSET, staleFor);
        value.fill(7, HEADER_BYTES);
        return value;
      };
      await store.set(k('ex:fresh'), envelope(now - 500, 60_000, 30_000), 90_000);
      await store.set(k('ex:endless'), envelope(now - 500, Infinity, Infinity));
      await store.set(k('ex:stale'), envelope(now - 70_000, 60_000, 30_000), 20_000);
      await store.set(k('ex:other'), bytes('not an envelope, long enough to have a header'));
      const marked = await store.expireEntries({ keys: [k('ex:fresh'), k('ex:endless'), k('ex:stale'), k('ex:other'), k('ex:none')], now });
      equal(marked, 2);
      const [fresh, endless, stale, other] = await store.getMany([k('ex:fresh'), k('ex:endless'), k('ex:stale'), k('ex:other')]);
      const header = (value: Uint8Array | undefined) => {
        const view = new DataView(value!.buffer, value!.byteOffset, value!.byteLength);
        return [view.getFloat64(CREATED_AT_OFFSET), view.getFloat64(FRESH_FOR_OFFSET), view.getFloat64(STALE_FOR_OFFSET)];
      };
      deepEqual(header(fresh), [now - 500, 500, 30_000]);
      deepEqual([...fresh!.subarray(SIZE_OFFSET)], [...envelope(0, 0, 0).subarray(SIZE_OFFSET)], 'the rest is unchanged');
      deepEqual(header(endless), [now - 500, 500, Infinity]);
      deepEqual(header(stale), [now - 70_000, 60_000, 30_000]);
      equal(text(other), 'not an envelope, long enough to have a header');
      equal(await store.expireEntries({ keys: [k('ex:fresh')], now }), 0, 'stale already: nothing to mark');
    });

    runner.it('a write lease nobody releases stops fencing after its TTL', async () => {
      if (!store.writeGenerations || !store.readWithGenerations) return assertNoCapability(store, 'writeGenerations');
      // A loaded machine may take longer than the lease's TTL from the hold to the read: that
      // read proves nothing, so the test runs again with a lease twice as long (up to 16 times).
      for (let lease = ttl; ; lease *= 2) {
        const tag = tagOf(`crash-${lease}`);
        await store.writeGenerations({ action: 'hold', tags: [tag], epoch: EPOCH, token: 'long', ttlMs: 60_000 });
        await store.writeGenerations({ action: 'release', tags: [tag], epoch: EPOCH, token: 'long' });
        const heldAt = Date.now();
        await store.writeGenerations({ action: 'hold', tags: [tag], epoch: EPOCH, token: 'crashed', ttlMs: lease });
        const { fenced } = (await store.readWithGenerations({ keys: [], tags: [tag], epoch: EPOCH })).tags[0]!;
        if (Date.now() - heldAt >= lease && lease < ttl * 16) continue;
        equal(fenced, true);
        await sleep(lease * 2 + 20);
        equal((await store.readWithGenerations({ keys: [], tags: [tag], epoch: EPOCH })).tags[0]!.fenced, false);
        return;
      }
    });

    runner.it('readWithGenerations refuses a generation counter that is not an integer', async () => {
      if (!store.readWithGenerations) return assertNoCapability(store, 'readWithGenerations');
      const tag = tagOf('garbage');
      await store.set(tag.generation, bytes('not a number'));
      await rejects(store.readWithGenerations({ keys: [], tags: [tag], epoch: EPOCH }));
    });

    runner.it('coherence: serves once confirmed, tells the other caches of the process of a write before it settles, and closes', async () => {
      if (!store.coherence) return assertNoCapability(store, 'coherence');
      const heard: string[] = [];
      const quiet = { invalidated: () => {}, flushed: () => {}, liveChanged: () => {} };
      const writer = store.coherence(quiet, { confirm: 'lease' });
      const other = store.coherence({ invalidated: (keys) => heard.push(...keys), flushed: () => heard.push('*'), liveChanged: () => {} }, { confirm: 'lease' });
      // Confirmed within a few beats on a bus that needs one (bounded: a store that never confirms fails here).
      for (let i = 0; i < 500 && !writer.serving(); i++) await sleep(10);
      equal(writer.serving(), true, 'coherence confirmed');
      equal(typeof writer.session, 'number');
      equal(typeof writer.covered([k('coh')], writer.mark), 'boolean');
      const written = store.set(k('coh'), bytes('v'));
      await writer.invalidate([k('coh')], written);
      ok(heard.includes(k('coh')), 'the other cache of the process heard of the write');
      await writer.invalidate(undefined, Promise.resolve());
      ok(heard.includes('*'), 'an invalidation of everything flushes the other cache');
      // A failed write is still invalidated (it may have happened), and its failure is not the bus's.
      await writer.invalidate([k('coh')], Promise.reject(new Error('the write failed')));
      await other.close();
      await writer.close();
    });

    target.additionalTests?.({
      get store() {
        if (store === undefined) throw new Error(`store contract: ${target.name}: context.store is read before the suite opened the store (read it inside a test)`);
        return store;
      },
      key: k,
      ttlMs: ttl,
      runner,
    });

    // Last, after the store's own tests: it closes the suite's store.
    runner.it('after close(), every call rejects with a StoreClosedError (not as an unreachable store), and close() again resolves', async () => {
      await store.clear?.(run);
      await store.close();
      closed = true;
      const key = k('after-close');
      const value = bytes('v');
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['get', () => store.get(key)],
        ['getMany', () => store.getMany([key])],
        ['set', () => store.set(key, value)],
        ['setMany', () => store.setMany([{ key, value }])],
        ['delete', () => store.delete([key])],
        ['incr', () => store.incr(key, 1)],
      ];
      const op: StoreOp = { kind: 'get', key };
      const tag = tagOf('after-close');
      if (store.pipeline) calls.push(['pipeline', () => store.pipeline!([op])]);
      if (store.add) calls.push(['add', () => store.add!(key, value)]);
      if (store.compareAndDelete) calls.push(['compareAndDelete', () => store.compareAndDelete!(key, value)]);
      if (store.clear) calls.push(['clear', () => store.clear!(key)]);
      if (store.keys) calls.push(['keys', () => store.keys!(key)]);
      if (store.readWithGenerations) calls.push(['readWithGenerations', () => store.readWithGenerations!({ keys: [key], tags: [tag], epoch: EPOCH })]);
      if (store.writeGenerations) calls.push(['writeGenerations', () => store.writeGenerations!({ action: 'bump', tags: [tag], epoch: EPOCH })]);
      if (store.expireEntries) calls.push(['expireEntries', () => store.expireEntries!({ keys: [key], now: 0 })]);
      if (store.getSync) {
        calls.push(['getSync', async () => store.getSync!(key)]);
        calls.push(['getManySync', async () => store.getManySync!([key])]);
        calls.push(['readWithGenerationsSync', async () => store.readWithGenerationsSync!({ keys: [key], tags: [tag], epoch: EPOCH })]);
      }
      for (const [name, call] of calls) {
        let promise: Promise<unknown>;
        try {
          promise = call();
        } catch (error) {
          promise = Promise.reject(error);
        }
        await rejectsWith(promise, (error) => error instanceof StoreClosedError, `${name} after close()`);
      }
      await store.close();
    });
  });
}

// A store may lack an optional capability; the contract then checks it is really absent
// (not half-implemented), so the test still asserts something true.
function assertNoCapability(store: Store, name: keyof Store): void {
  equal(typeof store[name], 'undefined');
}
