/**
 * Issue 30, item 2: the unstorage driver's `watch` over the store's coherence bus. Two valkey
 * stores on one redis-server are two processes as far as the bus goes (each its own
 * connections and bus id, nothing shared in memory): a write or removal through one reaches a
 * watch on the other with its event and its key (under the storage's mount), from another
 * driver or any cache with the coherent L1; unwatch stops delivery and unsubscribes what only
 * the watcher needed; a watcher acknowledges, so writes do not wait a lease for it. Stores
 * without a bus leave it to unstorage (events of the same storage only); SQLite's bus, which
 * cannot name keys, refuses it; so does a cache whose writes are not announced.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import Valkey from 'iovalkey';
import { createStorage, type WatchEvent } from 'unstorage';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { entryKey } from '../../src/cache/key-space.ts';
import { createCache, type Store } from '../../src/index.ts';
import { keyChannel, LEASE_MS, ownChannel } from '../../src/store/bus/format.ts';
import cachetteDriver from '../../src/unstorage/index.ts';
import { removeDir, tempDir } from '../adapters/sqlite-temp.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { clusterNodes, redisUrl, requireCluster, requireRedis } from '../support/redis-env.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/redis-server.ts';

type Seen = Array<[WatchEvent, string]>;

/**
 * MONITOR on a raw socket: each command the server runs, as its arguments. (iovalkey's own
 * monitor mode mistakes a logged argument holding `\"` for a reply.) The server quotes every
 * argument, escaping `"`, `\\` and control characters with a backslash, other bytes as `\xHH`.
 */
async function monitorCommands(url: string, onCommand: (args: string[]) => void): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let pending = '';
  let started: (() => void) | undefined;
  const monitoring = new Promise<void>((resolve) => (started = resolve));
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf('\r\n'); end !== -1; end = pending.indexOf('\r\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      if (line === '+OK') started?.();
      else if (line.startsWith('+')) onCommand(quotedArguments(line));
    }
  });
  socket.write('MONITOR\r\n');
  await monitoring;
  return socket;
}

const ESCAPED: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };

/** The quoted arguments of one MONITOR line. */
function quotedArguments(line: string): string[] {
  const args: string[] = [];
  let at = line.indexOf('"');
  while (at !== -1) {
    let arg = '';
    let i = at + 1;
    for (; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') arg += line[i];
      else if (line[i + 1] === 'x') {
        arg += String.fromCharCode(Number.parseInt(line.slice(i + 2, i + 4), 16));
        i += 3;
      } else {
        const escaped = line[++i]!;
        arg += ESCAPED[escaped] ?? escaped;
      }
    }
    args.push(arg);
    at = line.indexOf('"', i + 1);
  }
  return args;
}

/** A write and a removal through a driver over one store reach a watch over another store, under the storage's mount. */
async function writeAndRemovalHeard(open: () => Store): Promise<void> {
  const base = uniqueNamespace('uwatch');
  const writer = createStorage({ driver: cachetteDriver({ store: open(), base }) });
  const watched = createStorage().mount('site', cachetteDriver({ store: open(), base }));
  const { seen, callback } = recorder();
  const unwatch = await watched.watch(callback);
  await writer.setItem('users:1', { name: 'Ada' });
  await eventually(() => seen.length === 1, 'the update heard');
  await writer.removeItem('users:1');
  await eventually(() => seen.length === 2, 'the removal heard');
  expect(seen).toEqual([
    ['update', 'site:users:1'],
    ['remove', 'site:users:1'],
  ]);
  expect(await watched.getItem('site:users:1')).toBeNull();
  await unwatch();
  await writer.dispose();
  await watched.dispose();
}

/** A watch callback that records what it was told. */
function recorder(): { seen: Seen; callback: (event: WatchEvent, key: string) => void } {
  const seen: Seen = [];
  return { seen, callback: (event, key) => void seen.push([event, key]) };
}

describe.runIf(requireRedis())('watch over the valkey store’s coherence bus', () => {
  const opened: Store[] = [];
  const open = () => {
    const store = valkeyStore(redisUrl!);
    opened.push(store);
    return store;
  };
  const raw = requireRedis() ? new Valkey(redisUrl!) : undefined;
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    raw?.disconnect();
  });
  /** How many connections are subscribed to the bus channel of the driver's item `base:key`. */
  const subscribers = async (item: string) => {
    const [, count] = (await raw!.pubsub('NUMSUB', keyChannel(entryKey('cachette:', item)))) as [string, number];
    return count;
  };

  it('a write and a removal through one store reach the watch of a storage over another, under its mount', () => writeAndRemovalHeard(open));

  it('writes of any cache with the coherent L1 over the store are heard, keys outside the base are not', async () => {
    const base = uniqueNamespace('uwatch');
    const watched = createStorage({ driver: cachetteDriver({ store: open(), base }) });
    const other = createCache({ store: open(), l1: { consistency: 'coherent' } });
    const { seen, callback } = recorder();
    const unwatch = await watched.watch(callback);
    await other.set(`${base}-elsewhere:k`, 'not ours');
    await other.set(`${base}:#k`, 'ours, escaped on the store');
    await other.setMany([{ key: `${base}:a`, value: 1 }]);
    await other.delete([`${base}:a`]);
    await eventually(() => seen.length === 3, 'three events heard');
    expect(seen).toEqual([
      ['update', '#k'],
      ['update', 'a'],
      ['remove', 'a'],
    ]);
    await unwatch();
    await other.close();
  });

  it('a watch hears the writes of its own storage once each, after they were made', async () => {
    const storage = createStorage({ driver: cachetteDriver({ store: open(), base: uniqueNamespace('uwatch') }) });
    const seen: Array<[WatchEvent, string, unknown]> = [];
    const unwatch = await storage.watch((event, key) => void storage.getItem(key).then((value) => seen.push([event, key, value])));
    await storage.setItem('k', 'one');
    await eventually(() => seen.length === 1, 'the first write heard');
    await storage.setItem('k', 'two');
    await eventually(() => seen.length === 2, 'the second write heard');
    // Told after the write executed (the value read back is the new one), and not also before it.
    expect(seen).toEqual([
      ['update', 'k', 'one'],
      ['update', 'k', 'two'],
    ]);
    await unwatch();
  });

  it('unwatch stops delivery and unsubscribes the buckets only the watcher listened to', async () => {
    const base = uniqueNamespace('uwatch');
    const writer = createStorage({ driver: cachetteDriver({ store: open(), base }) });
    const driver = cachetteDriver({ store: open(), base });
    const before = await subscribers(`${base}:gone`);
    const first = recorder();
    const second = recorder();
    const unwatchFirst = await driver.watch!(first.callback);
    const unwatchSecond = await driver.watch!(second.callback);
    expect(await subscribers(`${base}:gone`)).toBe(before + 1);
    await unwatchFirst();
    await writer.setItem('gone', 'x');
    await writer.setItem('marker', 'y');
    // Both watchers sit on one bus, told of each message in order: the second heard the marker, so the first would have heard `gone`.
    await eventually(() => second.seen.length === 2, 'the second watcher heard both');
    expect(second.seen).toEqual([
      ['update', 'gone'],
      ['update', 'marker'],
    ]);
    expect(first.seen).toEqual([]);
    await unwatchSecond();
    expect(await subscribers(`${base}:gone`)).toBe(before);
    await driver.dispose!();
  });

  it('a watcher acknowledges every invalidation it receives: writes wait for it no lease (latency measured with and without)', async () => {
    const base = uniqueNamespace('uwatch');
    const writer = createStorage({ driver: cachetteDriver({ store: open(), base }) });
    const watched = createStorage({ driver: cachetteDriver({ store: open(), base }) });
    // MONITOR sees every PUBLISH without subscribing (a subscriber would be counted, and never acknowledge).
    const published: Array<{ channel: string; message: Record<string, unknown> }> = [];
    const monitor = await monitorCommands(redisUrl!, (args) => {
      if (args[0]?.toUpperCase() === 'PUBLISH') published.push({ channel: args[1]!, message: JSON.parse(args[2]!) as Record<string, unknown> });
    });
    const timedWrites = async (label: string) => {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await writer.setItem(`${label}${i}`, label);
        times.push(performance.now() - started);
      }
      return times;
    };
    await timedWrites('warm');
    const without = await timedWrites('without');
    const { seen, callback } = recorder();
    const unwatch = await watched.watch(callback);
    const withWatcher = await timedWrites('with');
    await eventually(() => seen.length === 20, 'every write heard');
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => ['update', `with${i}`]));
    // Each write's invalidation was acknowledged to its writer by the watcher's process.
    const ours = (key: string) => published.filter(({ message }) => Array.isArray(message.k) && message.k.includes(entryKey('cachette:', `${base}:${key}`)));
    const acknowledged = (invalidation: Record<string, unknown>) =>
      published.some(({ channel, message }) => channel === ownChannel(String(invalidation.w)) && message.a !== invalidation.w && Array.isArray(message.s) && message.s.includes(invalidation.s));
    await eventually(() => Array.from({ length: 20 }, (_, i) => ours(`with${i}`)).every((found) => found.length === 1 && acknowledged(found[0]!.message)), 'every invalidation acknowledged');
    await unwatch();
    monitor.destroy();
    const median = (times: number[]) => [...times].sort((a, b) => a - b)[times.length >> 1]!;
    console.info(`unstorage watch: setItem median ${median(without).toFixed(2)} ms without a watcher, ${median(withWatcher).toFixed(2)} ms with one (a lease is ${LEASE_MS} ms)`);
  });

  it('refuses a watch over a cache whose writes are not announced on the bus', async () => {
    const cache = createCache({ store: open(), prefix: uniqueNamespace('uwatch') });
    const storage = createStorage({ driver: cachetteDriver({ store: cache }) });
    await expect(storage.watch(() => {})).rejects.toThrow(/watch needs the cache's writes announced on the store's coherence bus/);
    await cache.close();
  });
});

describe.runIf(requireCluster())('watch over the cluster store’s coherence bus', () => {
  it('a write and a removal through one store reach the watch of a storage over another, under its mount', () =>
    // The same nodes in another order: both stores still agree on the bus node.
    writeAndRemovalHeard(
      (() => {
        let opened = 0;
        return () => valkeyStore({ cluster: opened++ % 2 === 0 ? clusterNodes!.split(',') : clusterNodes!.split(',').reverse() });
      })(),
    ));
});

describe('watch while the bus cannot come up', () => {
  it('rejects with an error naming the store once it waited its bound', { timeout: 30_000 }, async () => {
    // Nothing listens on the port: the bus never subscribes anything.
    const store = valkeyStore(`redis://127.0.0.1:${await freePort()}`);
    const storage = createStorage({ driver: cachetteDriver({ store }) });
    await expect(storage.watch(() => {})).rejects.toThrow(/could not listen on the valkey store's coherence bus within 10 s/);
    await storage.dispose();
  });
});

describe('watch where the store has no bus that names keys', () => {
  it('a memory store: the driver has no watch, and unstorage reports the writes of the same storage', async () => {
    const store = memoryStore();
    const driver = cachetteDriver({ store });
    expect(driver.watch).toBeUndefined();
    const storage = createStorage({ driver });
    const other = createStorage({ driver: cachetteDriver({ store }) });
    const { seen, callback } = recorder();
    await storage.watch(callback);
    await other.setItem('theirs', 1);
    await storage.setItem('mine', 1);
    expect(seen).toEqual([['update', 'mine']]);
    await storage.unwatch();
  });

  it('a sqlite store: watch refuses, since the change counter tells that something changed, not what', async () => {
    const dir = tempDir('uwatch');
    const store = sqliteStore(join(dir, 'cache.db'));
    try {
      const storage = createStorage({ driver: cachetteDriver({ store }) });
      await expect(storage.watch(() => {})).rejects.toThrow(/sqlite store's coherence bus .* cannot tell a watcher what changed/);
      await storage.dispose();
    } finally {
      removeDir(dir);
    }
  });
});
