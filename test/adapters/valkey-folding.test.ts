/**
 * How the valkey store folds a tick's ops into native commands: a run of reads as one MGET, a
 * run of plain writes as one MSET, each expiring entry as SET PX, each delete as one DEL and each
 * increment as one INCRBY, with per-op answers and errors; a script only for an increment that
 * gives a new counter its TTL, and plain commands again when the server refuses scripts. On the
 * store's own connection and through an iovalkey client passed in, against a real redis-server;
 * the server's own INFO commandstats count what ran.
 */
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { StoreRefusedError } from '../../src/store/index.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { requireRedis } from '../support/redis-env.ts';
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
    for (const [name, n] of Object.entries(after)) if (n !== (before[name] ?? 0) && name !== 'info') diff[name] = n - (before[name] ?? 0);
    before = await read();
    return diff;
  };
}

/** Script commands run: EVALSHA, or EVAL the first time a script meets a connection. */
const scriptCalls = (ran: Record<string, number>) => (ran.evalsha ?? 0) + (ran.eval ?? 0);

/** Opens a store on `url`, and closes what it opened (a client passed in stays open after the store's close). */
interface Transport {
  name: string;
  open(url: string): { store: ValkeyStore; close(): Promise<void> };
}

const transports: Transport[] = [
  {
    name: 'its own connection',
    open: (url) => {
      const store = valkeyStore(url);
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'an iovalkey client passed in',
    open: (url) => {
      const client = new Valkey(url);
      const store = valkeyStore({ connection: client });
      return {
        store,
        close: async () => {
          await store.close();
          client.disconnect();
        },
      };
    },
  },
];

describe.runIf(requireRedis()).each(transports)('valkey store folding, on $name', ({ open }) => {
  let admin: Valkey;
  let valkey: ValkeyStore;
  let closeStore: () => Promise<void>;
  // A server of its own: INFO commandstats counts every client's commands, and the other files run beside this one.
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis({ bin: process.env.REDIS_SERVER_BIN });
    admin = new Valkey(server.url);
    ({ store: valkey, close: closeStore } = open(server.url));
  });
  afterAll(async () => {
    await closeStore();
    admin.disconnect();
    await server.stop();
  });

  it('sends a tick of reads as one MGET, answers in call order', async () => {
    const store = new CountingStore(valkey);
    const cache = createCache({ store, namespace: uniqueNamespace('vf'), closeStore: false });
    await cache.setMany(['a', 'b'].map((key) => ({ key, value: key })));
    const since = await commandCounter(admin);
    store.reset();
    const read = await Promise.all([cache.get('lead'), cache.get('a'), cache.getMany(['b', 'x', 'a']), cache.get('x'), cache.get('b')]);
    expect(read).toEqual([undefined, 'a', ['b', undefined, 'a'], undefined, 'b']);
    expect(store.calls).toEqual([{ method: 'get' }, { method: 'pipeline', ops: ['get', 'getMany', 'get', 'get'] }]);
    expect(await since()).toEqual({ get: 1, mget: 1 });
  });

  it('sends a tick of increments as one INCRBY each, a script only for a counter created with a TTL, a bad counter failing alone', async () => {
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
    expect(ran.incrby).toBe(11 + 1); // ten, the bad one, and the one inside the TTL script
    expect(scriptCalls(ran)).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(StoreRefusedError);
    expect(await admin.pttl(`cachette:${ns}:ttl`)).toBeGreaterThan(3_500_000); // created by this call, so it got the TTL
    expect(await admin.pttl(`cachette:${ns}:n0`)).toBe(-1);
  });

  it('sends a tick of deletes as one DEL per op, each caller with how many of its keys existed', async () => {
    const cache = createCache({ store: valkey, namespace: uniqueNamespace('vf'), closeStore: false });
    await cache.setMany(['a', 'b', 'c', 'd'].map((key) => ({ key, value: key })));
    const since = await commandCounter(admin);
    const deleted = await Promise.all([cache.get('lead'), cache.delete('a'), cache.delete(['b', 'c', 'x']), cache.delete('a'), cache.delete(['d'])]);
    expect(deleted).toEqual([undefined, 1, 2, 0, 1]);
    const ran = await since();
    expect(ran.del).toBe(4);
    expect(scriptCalls(ran)).toBe(0);
  });

  it('sends a tick of writes as one MSET per run without a TTL and one SET PX per entry with one', async () => {
    const ns = uniqueNamespace('vf');
    const cache = createCache({ store: valkey, namespace: ns, closeStore: false });
    const since = await commandCounter(admin);
    const stored = await Promise.all([
      cache.get('lead'),
      cache.set('t1', 1, { ttl: '1h' }),
      cache.set('t2', 2, { ttl: '2h' }),
      cache.set('t3', 3),
      cache.set('t4', 4),
      cache.set('t5', 5, { ttl: '5h' }),
    ]);
    expect(stored).toEqual([undefined, true, true, true, true, true]);
    const ran = await since();
    expect(ran).toEqual({ get: 1, set: 3, mset: 1 });
    const ttl = (key: string) => admin.pttl(`cachette:${ns}:${key}`);
    expect(await ttl('t1')).toBeGreaterThan(3_500_000);
    expect(await ttl('t1')).toBeLessThanOrEqual(3_600_000);
    expect(await ttl('t2')).toBeGreaterThan(7_100_000);
    expect(await ttl('t3')).toBe(-1);
    expect(await ttl('t5')).toBeGreaterThan(17_000_000);
    expect(await cache.getMany(['t1', 't2', 't3', 't4', 't5'])).toEqual([1, 2, 3, 4, 5]);
  });

  it('falls back to plain commands for good when the server refuses scripts', async () => {
    const user = `noscript-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    await admin.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '+@all', '-@scripting');
    const url = new URL(server.url);
    url.username = user;
    url.password = 'any'; // a nopass user takes any password; without one the client would not AUTH
    const limited = open(url.toString());
    const ns = uniqueNamespace('vf');
    const cache = createCache({ store: limited.store, namespace: ns, closeStore: false });
    try {
      // A read leads each tick, so that the five increments travel together behind it.
      const first = await Promise.all([cache.get('lead'), ...Array.from({ length: 5 }, (_, i) => cache.incr(`s${i}`, 1, { ttl: '1h' }))]);
      expect(first).toEqual(Array(6).fill(undefined)); // the round the script was refused in
      const second = await Promise.all([cache.get('lead'), ...Array.from({ length: 5 }, (_, i) => cache.incr(`s${i}`, 1, { ttl: '1h' }))]);
      expect(second).toEqual([undefined, ...Array(5).fill(1)]);
      expect(await admin.pttl(`cachette:${ns}:s0`)).toBeGreaterThan(3_500_000);
      expect(cache.health()).toEqual({ reads: 'up', writes: 'up' });
    } finally {
      await cache.close();
      await limited.close();
      await admin.call('ACL', 'DELUSER', user);
    }
  });
});
