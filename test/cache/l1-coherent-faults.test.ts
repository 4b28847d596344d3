/**
 * The coherent L1 under faults (issue 28, item 3), on a redis-server of its own: the bus
 * connection killed, the server paused (SIGSTOP) and restarted, a partition between one holder
 * and the server (a TCP proxy that stops forwarding), a holder process frozen (SIGSTOP). In
 * each: no read that starts after a write returned gets the value from before it, no error
 * reaches a caller, and the bypass shows in stats() and the `coherence` event. Nothing here
 * asserts on time: the faults last longer than a lease, which is what they test.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Valkey from 'iovalkey';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { CircuitOpenError } from '../../src/store/index.ts';
import { createHttpCache } from '../../src/http/index.ts';
import { LEASE_MS } from '../../src/store/bus/format.ts';
import { requireRedis } from '../support/redis-env.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { eventually, untilFromMemory } from '../support/eventually.ts';
import { FailingStore } from '../support/wrapped-stores.ts';
import { startHolder } from './coherent-holder-process.ts';
import { uniqueNamespace } from './targets.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cache that records every error event and coherence change. */
function watched(cache: Cache): { errors: unknown[]; live: boolean[] } {
  const seen = { errors: [] as unknown[], live: [] as boolean[] };
  cache.events.addEventListener('coherence', (event) => seen.live.push(event.detail.live));
  return seen;
}

/** A TCP proxy to `port` that can stop forwarding (a partition: nothing closes, nothing passes) and resume. */
async function partitionProxy(port: number): Promise<{ url: string; partition(): void; heal(): void; close(): Promise<void> }> {
  const pairs: Array<[Socket, Socket]> = [];
  const held: Array<() => void> = [];
  let partitioned = false;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    pairs.push([client, upstream]);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (partitioned) held.push(() => to.write(chunk));
        else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    partition: () => void (partitioned = true),
    heal: () => {
      partitioned = false;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.runIf(requireRedis())('coherent L1 under faults', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A reader and a writer cache, each on its own store (two processes' connections). */
  function pair(readerUrl = server.url): { reader: Cache; writer: Cache; close(): Promise<void> } {
    const namespace = uniqueNamespace('l1cf');
    const reader = createCache({ store: valkeyStore(readerUrl), namespace, timeout: 300, logger: false, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: valkeyStore(server.url), namespace, timeout: 300, logger: false, l1: { consistency: 'coherent' } });
    return {
      reader,
      writer,
      close: async () => {
        await reader.close();
        await writer.close();
      },
    };
  }

  it('a commit() the breaker skipped is an error event naming the invalidation not made, and invalidateTags once the store is back makes it (docs/l1.md)', async () => {
    const namespace = uniqueNamespace('l1cf-skipped');
    const reader = createCache({ store: valkeyStore(server.url), namespace, logger: false, l1: { consistency: 'coherent' } });
    // The writer's store fails its writes on demand (as a partition of this process alone would), with a breaker opening at the first.
    const failing = new FailingStore(valkeyStore(server.url));
    const writer = createCache({ store: failing, namespace, logger: false, circuitBreaker: { threshold: 1, cooldownMs: 50 }, l1: { consistency: 'coherent' } });
    const errors: Array<{ operation: string; keys: readonly string[]; error: unknown }> = [];
    writer.events.addEventListener('error', (event) => errors.push(event.detail));
    let version = 0;
    const load = () => reader.getOrSet('row', () => version, { tags: ['rows'] });
    expect(await load()).toBe(0);
    await untilFromMemory(reader, 'row');
    const fence = await writer.beginWrite(['rows']);
    version = 1;
    failing.writes = 'fail';
    expect(await writer.set('other', 'x')).toBe(false);
    const reported = errors.length;
    const skipped = writer.stats().storeSkipped;
    // The source committed; the cache's commit cannot reach the store.
    await fence.commit();
    expect(writer.stats().storeSkipped).toBeGreaterThan(skipped);
    const event = errors.slice(reported).find((e) => e.operation === 'writeGenerations');
    expect(event?.error).toBeInstanceOf(CircuitOpenError);
    expect(event?.keys).toEqual([expect.stringContaining('rows')]);
    // What docs/l1.md says to do: invalidate the tags again once the store answers.
    failing.writes = 'pass';
    await eventually(() => writer.invalidateTags(['rows']), 'invalidateTags succeeds once the breaker lets a call through', 500);
    expect(await load()).toBe(1);
    await reader.close();
    await writer.close();
  });

  it('the bus connection killed: memory flushed and bypassed (stats, event), writes seen meanwhile, served from memory once confirmed again', async () => {
    const { reader, writer, close } = pair();
    const seen = watched(reader);
    await writer.set('k', 'v1');
    await untilFromMemory(reader, 'k');
    const admin = valkeyStore<Valkey>(server.url).client;
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await eventually(() => seen.live.includes(false), 'coherence lost', 500);
    const bypassed = reader.stats().l1Bypassed;
    await writer.set('k', 'v2');
    expect(await reader.get('k')).toBe('v2');
    expect(reader.stats().l1Bypassed).toBeGreaterThan(bypassed);
    await eventually(() => seen.live.at(-1) === true, 'coherence back', 500);
    await untilFromMemory(reader, 'k');
    await writer.set('k', 'v3');
    expect(await reader.get('k')).toBe('v3');
    expect(reader.stats().storeErrors).toBe(0);
    admin.disconnect();
    await close();
  });

  it('Cache-Status: a hit read from the store while the coherent L1 is bypassed says detail="l1-bypassed", and no longer once it serves again', async () => {
    const { reader, close } = pair();
    const seen = watched(reader);
    const http = createHttpCache({ cache: reader });
    const origin = async () => new Response('page', { headers: { 'cache-control': 'max-age=60' } });
    const status = async () => (await http.handle(new Request('http://cachette.test/page'), origin)).headers.get('cache-status')!;
    expect(await status()).toMatch(/fwd=uri-miss.*stored/);
    expect(await status()).toMatch(/^cachette; hit; ttl=\d+$/);
    const admin = valkeyStore<Valkey>(server.url).client;
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await eventually(() => seen.live.includes(false), 'coherence lost', 500);
    expect(await status()).toMatch(/^cachette; hit; ttl=\d+; detail="l1-bypassed"$/);
    await eventually(() => seen.live.at(-1) === true, 'coherence back', 500);
    expect(await status()).toMatch(/^cachette; hit; ttl=\d+$/);
    admin.disconnect();
    await http.close();
    await close();
  });

  it('the server paused (SIGSTOP) longer than a lease: no read after a write returned gets the old value, and no error reaches a caller', async () => {
    const { reader, writer, close } = pair();
    await writer.set('p', 'v1');
    await untilFromMemory(reader, 'p');
    process.kill(server.pid!, 'SIGSTOP');
    // While the server is away, reads are served (from memory while the lease lasts, then misses) and never throw.
    const during: unknown[] = [];
    const ends = Date.now() + LEASE_MS * 2;
    while (Date.now() < ends) {
      during.push(await reader.get('p'));
      await sleep(50);
    }
    expect(during.every((value) => value === 'v1' || value === undefined)).toBe(true);
    expect(during.at(-1)).toBeUndefined(); // the lease ran out: memory is no longer served
    process.kill(server.pid!, 'SIGCONT');
    await eventually(async () => (await writer.set('p', 'v2')) === true, 'a write after the pause', 500);
    expect(await reader.get('p')).toBe('v2');
    await close();
  });

  it('the server restarted: copies from before it are never served after a write returned', async () => {
    const { reader, writer, close } = pair();
    await writer.set('r', 'v1');
    await untilFromMemory(reader, 'r');
    const port = server.port;
    await server.stop();
    server = await startRedis({ port });
    await eventually(async () => (await writer.set('r', 'v2')) === true, 'a write after the restart', 500);
    expect(await reader.get('r')).toBe('v2');
    await untilFromMemory(reader, 'r');
    await close();
  });

  it('a partition between a holder and the server: the write returns within a lease, and the holder never serves the old value after it', async () => {
    const proxy = await partitionProxy(server.port);
    const { reader, writer, close } = pair(proxy.url);
    await writer.set('n', 'v1');
    await untilFromMemory(reader, 'n');
    proxy.partition();
    // The holder is still counted by the server but cannot answer: the write waits for its lease.
    expect(await writer.set('n', 'v2')).toBe(true);
    const after = await reader.get('n');
    expect(after === undefined || after === 'v2').toBe(true);
    proxy.heal();
    await eventually(async () => (await reader.get('n')) === 'v2', 'the holder reads the new value', 500);
    await untilFromMemory(reader, 'n');
    await close();
    await proxy.close();
  });

  it('a holder process frozen (SIGSTOP): the write returns once its lease ran out, and the holder never serves the old value when it wakes', async () => {
    const namespace = uniqueNamespace('l1cf-frozen');
    const writer = createCache({ store: valkeyStore(server.url), namespace, l1: { consistency: 'coherent' } });
    const holder = startHolder(server.url, namespace);
    expect(await holder.next()).toBe('ready');
    await writer.set('f', 'v1');
    await eventually(
      async () => {
        const read = JSON.parse(await holder.ask('f')) as { value: unknown; memory: boolean };
        return read.value === 'v1' && read.memory;
      },
      'the holder serves f from memory',
      500,
    );
    process.kill(holder.child.pid!, 'SIGSTOP');
    expect(await writer.set('f', 'v2')).toBe(true);
    process.kill(holder.child.pid!, 'SIGCONT');
    const woke = JSON.parse(await holder.ask('f')) as { value: unknown };
    expect(woke.value).toBe('v2');
    holder.child.stdin!.write('quit\n');
    await new Promise((resolve) => holder.child.once('exit', resolve));
    await writer.close();
  });
});
