/**
 * cachette/testing (issue 31, item 8): the fake clock drives TTL, grace and refresh-ahead with
 * no sleep; faultyStore injects errors, latency and partitions and mirrors its store's
 * capabilities; the probe counts hits, misses and factory calls and fails with a diff.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';
import { StoreBusyError, StoreUnavailableError } from '../../src/store/errors.ts';
import { cacheProbe, countCalls, fakeClock, faultyStore, ProbeAssertionError } from '../../src/testing/index.ts';

function setup(options: { refreshAhead?: number; timeout?: number } = {}) {
  const clock = fakeClock();
  const store = faultyStore(memoryStore({ clock }));
  const cache = createCache({ store, clock, ttl: '1m', grace: '10m', ...options });
  let version = 0;
  const load = countCalls(async (_ctx: { key: string }) => `v${++version}`);
  return { clock, store, cache, load, probe: cacheProbe(cache) };
}

describe('fakeClock', () => {
  it('moves only when told, by ms or durations, and never back', () => {
    const clock = fakeClock(1_000);
    assert.equal(clock.now(), 1_000);
    assert.equal(clock.advance(500), 1_500);
    assert.equal(clock.advance('2s'), 3_500);
    clock.set(10_000);
    assert.equal(clock.now(), 10_000);
    assert.throws(() => clock.advance(-1), RangeError);
    assert.throws(() => clock.advance(Infinity), /finite/);
    assert.throws(() => clock.advance('soon' as never), RangeError);
    assert.throws(() => clock.set(9_999), /forward only/);
    assert.throws(() => clock.set(Number.NaN), TypeError);
    assert.throws(() => fakeClock(-5), TypeError);
    assert.equal(clock.now(), 10_000, 'a refused move changes nothing');
    assert.throws(() => memoryStore({ clock: {} as never }), /"clock" must have a now\(\) method/);
  });

  it('drives the ttl and the grace of the engine and of the memory store together', async () => {
    const { clock, store, cache, load, probe } = setup();
    assert.equal(await cache.getOrSet('k', load), 'v1');
    clock.advance('59s');
    assert.equal(await cache.getOrSet('k', load), 'v1');
    assert.equal((await cache.inspect('k')).ttl, 1_000, 'inspect sees the fake time: one second left');
    clock.advance('2s');
    assert.equal(await cache.getOrSet('k', load), 'v1', 'stale inside grace: served, refreshed behind');
    await cache.idle();
    assert.equal(await cache.getOrSet('k', load), 'v2');
    probe.expect({ misses: 1, hits: 2, stale: 1, refreshes: 1, fills: 2 });
    clock.advance('1h');
    assert.deepEqual((await store.inner.keys!('')).keys, [], 'past ttl + grace the store itself has dropped it');
    assert.equal(await cache.getOrSet('k', load), 'v3', 'past the grace: a miss');
    assert.equal(load.calls, 3);
    await cache.close();
  });

  it('drives refresh-ahead: a read past the fraction refreshes in the background', async () => {
    const { clock, cache, load, probe } = setup({ refreshAhead: 0.8 });
    await cache.getOrSet('k', load);
    clock.advance('47s');
    await cache.getOrSet('k', load);
    probe.expect({ refreshes: 0 });
    clock.advance('2s');
    assert.equal(await cache.getOrSet('k', load), 'v1', 'still fresh: served at once');
    await cache.idle();
    probe.expect({ refreshes: 1, fills: 2 });
    assert.equal(await cache.getOrSet('k', load), 'v2');
    await cache.close();
  });
});

describe('faultyStore', () => {
  it('an error on reads: the cache serves from the source and reports the store error; removed, the store is read again', async () => {
    const { store, cache, load, probe } = setup();
    await cache.getOrSet('k', load);
    const outage = store.inject({ ops: 'reads', error: new StoreUnavailableError('memory: injected') });
    const readsBefore = store.calls.get;
    assert.equal(await cache.getOrSet('k', load), 'v2');
    assert.equal(store.calls.get, readsBefore, 'the failed read never reached the store');
    assert.ok(store.failed >= 1 && outage.taken >= 1);
    assert.ok(probe.counts().errors >= 1);
    outage.remove();
    assert.equal(await cache.getOrSet('k', load), 'v2', 'the value written meanwhile is read back');
    assert.equal(load.calls, 2);
    await cache.close();
  });

  it('times: a fault takes that many calls and removes itself', async () => {
    const store = faultyStore(memoryStore());
    const fault = store.inject({ ops: ['set'], error: () => new Error('once'), times: 1 });
    await assert.rejects(store.set('a', new Uint8Array([1])), /once/);
    await store.set('a', new Uint8Array([2]));
    assert.deepEqual(await store.get('a'), new Uint8Array([2]));
    assert.equal(fault.taken, 1);
    await store.close();
  });

  it('rate: a share of the calls, the same calls for the same seed', async () => {
    const taken = async (seed: number) => {
      const store = faultyStore(memoryStore(), { seed });
      store.inject({ ops: ['get'], error: new Error('x'), rate: 0.3 });
      const failed: number[] = [];
      for (let i = 0; i < 1_000; i++) await store.get('k').catch(() => failed.push(i));
      await store.close();
      return failed;
    };
    const first = await taken(7);
    assert.deepEqual(await taken(7), first);
    assert.notDeepEqual(await taken(8), first);
    assert.ok(first.length > 200 && first.length < 400, `${first.length} of 1,000 taken at rate 0.3`);
  });

  it('latency past the cache timeout: the read times out once the fake clock passes its deadline, and the source answers', async () => {
    // A local store has no store timeout by default: this cache sets one. Store deadlines are
    // read on the cache's clock, so the fake clock decides when the call is late.
    const { clock, store, cache, load, probe } = setup({ timeout: 50 });
    await cache.getOrSet('k', load);
    store.inject({ ops: ['get'], latency: '1s', times: 1 });
    const read = cache.getOrSet('k', load);
    clock.advance(100);
    assert.equal(await read, 'v2');
    probe.expect({ errors: 1 });
    await cache.close();
  });

  it('partition: every call fails at once without reaching the store until heal()', async () => {
    const { store, cache, load } = setup();
    await cache.getOrSet('k', load);
    store.partition();
    await assert.rejects(store.get('k'), StoreUnavailableError);
    assert.equal(await cache.getOrSet('k', load), 'v2', 'served from the source');
    store.heal();
    assert.equal(await cache.get('k'), 'v1', 'the write made during the partition never reached the store');
    await cache.close();
  });

  it('mirrors the capabilities of its store, but no bus; sync reads step aside while a fault may take them', async () => {
    const inner = memoryStore();
    const store = faultyStore(inner);
    for (const name of ['add', 'compareAndDelete', 'clear', 'keys', 'readWithGenerations', 'expireEntries', 'writeGenerations', 'getSync', 'getManySync', 'readWithGenerationsSync'] as const) {
      assert.equal(typeof store[name], 'function', name);
    }
    assert.equal(store.track, undefined);
    assert.equal(store.coherence, undefined);
    assert.equal(store.local, true);
    assert.equal(store.name, 'memory');
    await store.set('a', new Uint8Array([1]));
    assert.deepEqual(store.getSync!('a'), new Uint8Array([1]));
    store.inject({ ops: ['get'], latency: 1 });
    assert.throws(() => store.getSync!('a'), StoreBusyError);
    store.reset();
    assert.deepEqual(store.getSync!('a'), new Uint8Array([1]));
    const bare = faultyStore({
      name: 'bare',
      get: inner.get.bind(inner),
      getMany: inner.getMany.bind(inner),
      set: inner.set.bind(inner),
      setMany: inner.setMany.bind(inner),
      delete: inner.delete.bind(inner),
      incr: inner.incr.bind(inner),
      close: async () => {},
    });
    assert.equal(bare.getSync, undefined);
    assert.equal(bare.readWithGenerations, undefined);
    await store.close();
  });

  it('refuses what is not a store or not a fault, with a clear error', () => {
    assert.throws(() => faultyStore({} as never), /must be a store/);
    const store = faultyStore(memoryStore());
    assert.throws(() => store.inject({ ops: ['gett' as never] }), /unknown operation "gett"/);
    assert.throws(() => store.inject({ ops: [] }), /non-empty/);
    assert.throws(() => store.inject({ rate: 2 }), /rate/);
    assert.throws(() => store.inject({ times: 0 }), /times/);
    assert.throws(() => store.inject({ latency: Infinity }), /partition/);
    assert.throws(() => store.inject({ error: 'boom' as never }), /Error/);
  });
});

describe('cacheProbe and countCalls', () => {
  it('counts per key and fails with what differs', async () => {
    const { cache, load, probe } = setup();
    await Promise.all([cache.getOrSet('a', load), cache.getOrSet('a', load), cache.getOrSet('b', load)]);
    await cache.getOrSet('a', load);
    probe.expect({ fills: 2 });
    probe.expect({ misses: 1, hits: 1, coalesced: 1, fills: 1 }, 'a');
    assert.equal(load.calls, 2);
    assert.deepEqual(
      load.args.map(([ctx]) => ctx.key),
      ['a', 'b'],
      'the factory got each key once',
    );
    const failure = (() => {
      try {
        probe.expect({ hits: 5, misses: 1 }, 'a');
      } catch (error) {
        return error;
      }
    })();
    assert.ok(failure instanceof ProbeAssertionError);
    assert.equal(failure.message, 'cache probe of key "a": hits expected 5, saw 1');
    assert.deepEqual(failure.actual, { hits: 1, misses: 1 });
    assert.throws(() => probe.expect({ hitz: 1 } as never), /unknown count "hitz"/);
    probe.reset();
    probe.expect({ hits: 0, fills: 0 });
    probe.stop();
    await cache.getOrSet('a', load);
    probe.expect({ hits: 0 });
    load.reset();
    assert.equal(load.calls, 0);
    await cache.close();
  });

  it('keeps at most maxLog records, and exact counts', async () => {
    const cache = createCache({ store: memoryStore() });
    const probe = cacheProbe(cache, { maxLog: 3 });
    for (let i = 0; i < 5; i++) await cache.get(`k${i}`);
    assert.equal(probe.log.length, 3);
    assert.deepEqual(
      probe.log.map((record) => record.key),
      ['k2', 'k3', 'k4'],
    );
    probe.expect({ misses: 5 });
    assert.throws(() => cacheProbe(cache, { maxLog: -1 }), RangeError);
    assert.throws(() => cacheProbe({} as never), /createCache/);
    assert.throws(() => countCalls('x' as never), TypeError);
    await cache.close();
  });
});
