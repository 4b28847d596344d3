/**
 * The engine's store path, tested by what reaches the store: a counting or failing store sits
 * under the engine and the assertions are about the calls it saw, not about timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { CircuitOpenError, StoreRefusedError } from '../../src/store/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore, FailingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from './targets.ts';
import { capturedLogger } from '../support/captured-logger.ts';

describe.runIf(requireRedis())('folding on an ordered store (valkey)', () => {
  let valkey: ValkeyStore;
  let store: CountingStore;
  beforeAll(() => {
    valkey = valkeyStore(redisUrl!);
    store = new CountingStore(valkey);
  });
  afterAll(async () => {
    await valkey.clear(`cachette:fold-`);
    await valkey.close();
  });
  const open = (batch?: boolean) => createCache({ store, namespace: uniqueNamespace('fold'), closeStore: false, ...(batch === undefined ? {} : { batch }) });

  it('sends the first call of a tick straight down and folds the rest of the tick into one pipeline', async () => {
    const cache = open();
    await cache.setMany(Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: i })));
    store.reset();
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => cache.get(`k${i}`)));
    expect(got).toEqual(Array.from({ length: 40 }, (_, i) => (i < 20 ? i : undefined)));
    expect(store.calls).toEqual([{ method: 'get' }, { method: 'pipeline', ops: Array(39).fill('get') }]);
  });

  it('sends one call at a time straight to the store, never through a pipeline', async () => {
    const cache = open();
    store.reset();
    for (let i = 0; i < 5; i++) await cache.get(`serial${i}`);
    await cache.set('serial', 1);
    await cache.incr('serial-n');
    expect(store.calls.map((c) => c.method)).toEqual(['get', 'get', 'get', 'get', 'get', 'set', 'incr']);
  });

  it('folds every kind of call of a tick, in issue order, and gives each caller its own answer', async () => {
    const cache = open();
    await cache.set('x', 'old');
    store.reset();
    const [, deleted, afterDelete, counted, many, stored, read] = await Promise.all([
      cache.set('x', 'v1'),
      cache.delete(['x', 'absent']),
      cache.get('x'),
      cache.incr('n', 5),
      cache.getMany(['m1', 'm2']),
      cache.setMany([
        { key: 'm1', value: 1 },
        { key: 'm2', value: 2 },
      ]),
      cache.getMany(['m1', 'm2']),
    ]);
    expect(deleted).toBe(1);
    expect(afterDelete).toBeUndefined();
    expect(counted).toBe(5);
    expect(many).toEqual([undefined, undefined]);
    expect(stored).toBe(true);
    expect(read).toEqual([1, 2]);
    expect(store.calls).toEqual([{ method: 'set' }, { method: 'pipeline', ops: ['delete', 'get', 'incr', 'getMany', 'setMany', 'getMany'] }]);
  });

  it('with batch: false, every call reaches the store on its own', async () => {
    const cache = open(false);
    store.reset();
    await Promise.all(Array.from({ length: 10 }, (_, i) => cache.get(`nb${i}`)));
    expect(store.count('get')).toBe(10);
    expect(store.count('pipeline')).toBe(0);
  });

  it('keeps a per-op failure to its own caller: an incr on a value that is not a counter', async () => {
    const cache = open();
    await cache.set('not-a-counter', { a: 1 });
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (e) => errors.push(e.detail.error));
    const [first, counter, value] = await Promise.all([cache.get('lead'), cache.incr('not-a-counter'), cache.get('not-a-counter')]);
    expect(first).toBeUndefined();
    expect(counter).toBeUndefined();
    expect(value).toEqual({ a: 1 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreRefusedError);
    expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
  });
});

describe('folding on a store that may reorder calls in flight', () => {
  it('holds even the first call for the tick, and sends the tick as ordered groups', async () => {
    const store = new CountingStore(memoryStore(), { ordered: false, local: false, pipeline: false });
    const cache = createCache({ store, prefix: 'u', batch: true });
    await cache.set('a', 1);
    store.reset();
    const [a, , b, , c] = await Promise.all([cache.get('a'), cache.get('b'), cache.get('a'), cache.set('b', 2), cache.get('b')]);
    expect([a, b, c]).toEqual([1, 1, 2]);
    expect(store.calls.map((call) => call.method)).toEqual(['getMany', 'set', 'get']);
  });
});

describe('the guard', () => {
  const setup = (options: { threshold?: number; cooldownMs?: number; timeout?: number } = {}) => {
    const clock = new FakeClock();
    const failing = new FailingStore(memoryStore(), { pipeline: false });
    const store = new CountingStore(failing, { local: false, ordered: true });
    const logger = capturedLogger();
    const { lines } = logger;
    const cache = createCache({
      store,
      prefix: 'g',
      clock,
      logger,
      timeout: options.timeout ?? Infinity,
      circuitBreaker: { threshold: options.threshold ?? 3, cooldownMs: options.cooldownMs ?? 1000 },
    });
    const health: string[] = [];
    cache.events.addEventListener('health', (e) => health.push(`${e.detail.kind} ${e.detail.state}`));
    return { clock, failing, store, cache, lines, health };
  };

  it('keeps reads alive while writes fail: a full server still serves its hits', async () => {
    const { failing, cache, health } = setup();
    await cache.set('k', 'v');
    failing.writes = 'fail';
    failing.error = () => new Error('OOM command not allowed when used memory > maxmemory');
    for (let i = 0; i < 10; i++) expect(await cache.set(`w${i}`, i)).toBe(false);
    expect(cache.health()).toEqual({ reads: 'up', writes: 'down' });
    expect(health).toEqual(['write down']);
    for (let i = 0; i < 10; i++) expect(await cache.get('k')).toBe('v');
    expect(cache.stats().hits).toBe(10);
  });

  it('never counts a refused call against the store', async () => {
    const { failing, cache } = setup();
    failing.writes = 'fail';
    failing.error = () => new StoreRefusedError('value is not an integer or out of range');
    for (let i = 0; i < 20; i++) expect(await cache.incr('n')).toBeUndefined();
    expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
    expect(cache.stats().storeErrors).toBe(20);
  });

  it('lets exactly one probe through per cool-down, whatever the traffic, and recovers on its success', async () => {
    const { clock, failing, store, cache, health } = setup({ threshold: 2, cooldownMs: 1000 });
    await cache.set('k', 'v');
    failing.reads = 'fail';
    await cache.get('k');
    await cache.get('k');
    expect(cache.health().reads).toBe('down');
    store.reset();
    expect(await Promise.all(Array.from({ length: 20 }, () => cache.get('k')))).toEqual(Array(20).fill(undefined));
    expect(store.calls).toHaveLength(0); // skipped, none reached the store
    clock.advance(1000);
    await Promise.all(Array.from({ length: 20 }, () => cache.get('k')));
    expect(store.calls).toHaveLength(1); // the probe, which failed: down for another cool-down
    clock.advance(999);
    await Promise.all(Array.from({ length: 5 }, () => cache.get('k')));
    expect(store.calls).toHaveLength(1);
    failing.reads = 'pass';
    clock.advance(1);
    expect(await cache.get('k')).toBe('v'); // the probe succeeds: the breaker closes
    expect(store.calls).toHaveLength(2);
    expect(await Promise.all(Array.from({ length: 5 }, () => cache.get('k')))).toEqual(Array(5).fill('v'));
    expect(health).toEqual(['read down', 'read up']);
    expect(cache.stats().storeSkipped).toBeGreaterThan(0); // store calls kept away (a folded call counts once)
  });

  it('throws a CircuitOpenError at a strict caller while the store is held as down', async () => {
    const failing = new FailingStore(memoryStore());
    const cache = createCache({ store: new CountingStore(failing, { local: false }), strict: true, circuitBreaker: { threshold: 1 }, logger: capturedLogger() });
    failing.reads = 'fail';
    await expect(cache.get('k')).rejects.toThrow(/ECONNREFUSED/);
    await expect(cache.get('k')).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('says each change of state once, in the log and as an event, with the cause and the address', async () => {
    const { clock, failing, cache, lines, health } = setup({ threshold: 3 });
    failing.reads = 'fail';
    failing.writes = 'fail';
    for (let i = 0; i < 50; i++) {
      await cache.get(`k${i}`);
      await cache.set(`k${i}`, i);
    }
    expect(health).toEqual(['read down', 'write down']);
    expect(lines).toEqual([
      'warn cachette: store memory is unreachable (connect ECONNREFUSED 127.0.0.1:1); serving from the source',
      'warn cachette: memory reads down: connect ECONNREFUSED 127.0.0.1:1 (3 consecutive failures); skipping them, one probe every 1000 ms',
      'warn cachette: memory writes down: connect ECONNREFUSED 127.0.0.1:1 (3 consecutive failures); skipping them, one probe every 1000 ms',
    ]);
    failing.reads = 'pass';
    failing.writes = 'pass';
    clock.advance(1000);
    await cache.get('x');
    await cache.set('x', 1);
    expect(health).toEqual(['read down', 'write down', 'read up', 'write up']);
    expect(lines.slice(3)).toEqual([
      'info cachette: memory reads recovered after 1000 ms (47 calls skipped meanwhile)',
      'info cachette: memory writes recovered after 1000 ms (47 calls skipped meanwhile)',
      'info cachette: store memory answers again',
    ]);
  });

  it('makes a getOrSet wait for the read, never for the write: a hung store costs one timeout', async () => {
    const { clock, failing, store, cache } = setup({ timeout: 50 });
    failing.reads = 'hang';
    failing.writes = 'hang';
    store.reset();
    const value = cache.getOrSet('k', () => 'from the origin');
    clock.advance(50); // the guard's coarse timer sees the read past its deadline
    expect(await value).toBe('from the origin');
    // The read timed out; the write went out and is still hanging, yet the caller has its value.
    expect(store.calls.map((c) => c.method)).toEqual(['get', 'set']);
    failing.release();
    await cache.idle();
  });

  it('bounds close(): a factory that never settles does not hold it', async () => {
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), grace: '1h', ttl: 1000, clock });
    await cache.set('k', 'stale soon');
    clock.advance(2000);
    expect(await cache.getOrSet('k', () => new Promise<string>(() => {}))).toBe('stale soon'); // a refresh that hangs
    await cache.close({ timeout: 50 });
  });
});
