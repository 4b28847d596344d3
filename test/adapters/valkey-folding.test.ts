/**
 * How the valkey store folds a tick's ops into few commands: runs of increments, deletes and
 * expiring writes as one script each, with per-op answers and errors, and plain commands
 * again when the server refuses scripts. Against a real redis-server.
 */
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, StoreRefusedError } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from '../cache/targets.ts';

/** Calls of each command the server ran since the last call, from INFO commandstats. */
async function commandCounter(admin: Valkey): Promise<() => Promise<Record<string, number>>> {
  const read = async () => {
    const counts: Record<string, number> = {};
    for (const m of (await admin.info('commandstats')).matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) counts[m[1]!] = Number(m[2]);
    return counts;
  };
  let before = await read();
  return async () => {
    const after = await read();
    const diff: Record<string, number> = {};
    for (const [name, n] of Object.entries(after)) if (n !== (before[name] ?? 0)) diff[name] = n - (before[name] ?? 0);
    before = await read();
    return diff;
  };
}

/** Script commands run: EVALSHA, or EVAL the first time a script meets this server. */
const scriptCalls = (ran: Record<string, number>) => (ran.evalsha ?? 0) + (ran.eval ?? 0);

describe.runIf(requireRedis())('valkey store folding', () => {
  let admin: Valkey;
  let valkey: ValkeyStore;
  beforeAll(() => {
    admin = new Valkey(redisUrl!);
    valkey = valkeyStore(redisUrl!);
  });
  afterAll(async () => {
    await valkey.clear('cachette:vf-');
    await valkey.close();
    admin.disconnect();
  });

  it('sends a tick of increments as one script, each caller with its own count, a bad counter failing alone', async () => {
    const store = new CountingStore(valkey);
    const ns = uniqueNamespace('vf');
    const cache = createCache({ store, namespace: ns, closeStore: false });
    await cache.set('not-a-counter', { a: 1 });
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (e) => errors.push(e.detail.error));
    const since = await commandCounter(admin);
    store.reset();
    const counts = await Promise.all([cache.get('lead'), ...Array.from({ length: 10 }, (_, i) => cache.incr(`n${i % 5}`, i + 1)), cache.incr('not-a-counter'), cache.incr('ttl', 1, { ttl: '1h' })]);
    expect(counts).toEqual([undefined, 1, 2, 3, 4, 5, 1 + 6, 2 + 7, 3 + 8, 4 + 9, 5 + 10, undefined, 1]);
    expect(store.calls).toEqual([{ method: 'get' }, { method: 'pipeline', ops: Array(12).fill('incr') }]);
    const ran = await since();
    expect(scriptCalls(ran)).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreRefusedError);
    expect(await admin.pttl(`cachette:${ns}:ttl`)).toBeGreaterThan(3_500_000); // created by this call, so it got the TTL
    expect(await admin.pttl(`cachette:${ns}:n0`)).toBe(-1);
  });

  it('sends a tick of deletes as one script, each caller with how many of its keys existed', async () => {
    const cache = createCache({ store: valkey, namespace: uniqueNamespace('vf'), closeStore: false });
    await cache.setMany(['a', 'b', 'c', 'd'].map((key) => ({ key, value: key })));
    const since = await commandCounter(admin);
    const deleted = await Promise.all([cache.get('lead'), cache.delete('a'), cache.delete(['b', 'c', 'x']), cache.delete('a'), cache.delete(['d'])]);
    expect(deleted).toEqual([undefined, 1, 2, 0, 1]);
    const ran = await since();
    expect(ran.del).toBe(6); // one per key (a, b, c, x, a, d), run inside the one script
    expect(scriptCalls(ran)).toBe(1);
  });

  it('sends a tick of expiring writes as one script, each with its own TTL', async () => {
    const ns = uniqueNamespace('vf');
    const cache = createCache({ store: valkey, namespace: ns, closeStore: false });
    const since = await commandCounter(admin);
    const stored = await Promise.all([cache.get('lead'), cache.set('t1', 1, { ttl: '1h' }), cache.set('t2', 2, { ttl: '2h' }), cache.set('t3', 3), cache.set('t4', 4, { ttl: '4h' })]);
    expect(stored).toEqual([undefined, true, true, true, true]);
    expect(scriptCalls(await since())).toBe(1);
    const ttl = (key: string) => admin.pttl(`cachette:${ns}:${key}`);
    expect(await ttl('t1')).toBeGreaterThan(3_500_000);
    expect(await ttl('t1')).toBeLessThanOrEqual(3_600_000);
    expect(await ttl('t2')).toBeGreaterThan(7_100_000);
    expect(await ttl('t3')).toBe(-1);
    expect(await cache.getMany(['t1', 't2', 't3', 't4'])).toEqual([1, 2, 3, 4]);
  });

  it('falls back to plain commands for good when the server refuses scripts', async () => {
    const user = `noscript-${Date.now().toString(36)}`;
    await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '+@all', '-@scripting');
    const url = new URL(redisUrl!);
    url.username = user;
    url.password = 'any'; // a nopass user takes any password; without one the client would not AUTH
    const limited = valkeyStore(url.toString());
    const cache = createCache({ store: limited, namespace: uniqueNamespace('vf') });
    try {
      // A read leads each tick, so that the five increments travel together behind it.
      const first = await Promise.all([cache.get('lead'), ...Array.from({ length: 5 }, (_, i) => cache.incr(`s${i}`))]);
      expect(first).toEqual(Array(6).fill(undefined)); // the round the script was refused in
      const second = await Promise.all([cache.get('lead'), ...Array.from({ length: 5 }, (_, i) => cache.incr(`s${i}`))]);
      expect(second).toEqual([undefined, ...Array(5).fill(1)]);
      expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
    } finally {
      await cache.close();
      await admin.call('ACL', 'DELUSER', user);
    }
  });
});
