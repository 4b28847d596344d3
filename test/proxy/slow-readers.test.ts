/**
 * Issue 23, item 9: clients that ask for large cached responses and never read. On a store
 * outside the process every hit decodes its own copy of the body, and each such client held
 * its copy for as long as it kept the connection open: 40 of them added 288 MiB. Now clients of
 * one entry share one copy, the total held for clients is bounded (the connections that took
 * nothing for the longest are closed), and a client that takes nothing for `writeTimeout` is
 * closed. Raw sockets that never read, a real redis-server behind the proxy (bench/
 * proxy-slow-readers.ts measures the RSS).
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../products/proxy/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { closesAfterEach, recordingOrigin, waitFor } from './support.ts';

const closing = closesAfterEach();
const MIB = 1024 * 1024;

/** Answers /<size in KiB>/<anything> with that many bytes, cacheable. */
function sizedOrigin() {
  return recordingOrigin((req, res) => {
    const kib = Number(req.url!.split('/')[1]);
    // Filled with a byte of the path's own, so that different paths never have equal bodies.
    const body = Buffer.alloc(kib * 1024, req.url!.charCodeAt(req.url!.length - 1));
    res.writeHead(200, { 'cache-control': 'max-age=600', 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
    res.end(body);
  });
}

/** A proxy over the suite's redis-server, in a namespace of its own. */
async function valkeyProxy(origin: string, options: Partial<ProxyOptions>): Promise<RunningProxy> {
  const store = valkeyStore(redisUrl!);
  const proxy = await startProxy({ origin, store, namespace: `slow-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`, ...options });
  closing({ close: () => store.close() });
  return closing(proxy);
}

/** Reads a response whole (to fill the cache), and how many bytes it had. */
async function readWhole(proxy: RunningProxy, path: string): Promise<number> {
  return (await (await fetch(proxy.url + path)).arrayBuffer()).byteLength;
}

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A client that never read, once it starts reading: the bytes it got, and whether they were cut short. */
interface Drained {
  bytes: number;
  /** True when the connection closed before the responses were complete: the proxy closed it. */
  cut: boolean;
}

/**
 * A client that sends GETs for `paths` (pipelined) and reads nothing until `drain`; it resolves
 * once the first bytes of the answer arrived, so the proxy has begun writing it.
 */
function stalledClient(proxy: RunningProxy, paths: readonly string[]): Promise<{ drain(completeBytes: number): Promise<Drained> }> {
  return new Promise((resolve) => {
    const socket = connect(proxy.port, '127.0.0.1', () => {
      socket.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${proxy.port}\r\n\r\n`).join(''));
    });
    socket.on('error', () => {});
    sockets.push(socket);
    // Until drain nothing is read: what arrives stays in the kernel and a buffer of 16 KiB.
    const arrived = () => resolve({ drain });
    socket.once('readable', arrived);
    // A connection the proxy closed still delivers what the kernels hold, then ends; one it kept delivers everything.
    const drain = (completeBytes: number) =>
      new Promise<Drained>((done) => {
        let bytes = 0;
        socket.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes >= completeBytes) done({ bytes, cut: false });
        });
        socket.on('close', () => done({ bytes, cut: bytes < completeBytes }));
        socket.resume();
      });
  });
}

describe.runIf(requireRedis())('proxy: clients that do not read', () => {
  it('holds one copy of an entry for any number of stalled clients (the reproduction: one copy each)', async () => {
    const origin = closing(await sizedOrigin());
    const proxy = await valkeyProxy(origin.url, { maxBodyBytes: 16 * MIB });
    const path = '/12288/same';
    assert.equal(await readWhole(proxy, path), 12 * MIB);
    await proxy.idle();
    const clients = [];
    // Each hit decodes its own copy from Redis; every client after the first writes from the first's.
    for (let i = 0; i < 10; i++) clients.push(await stalledClient(proxy, [path]));
    assert.equal(proxy.held().bytes, 12 * MIB, 'one copy, however many clients');
    assert.equal(origin.received.length, 1);
    assert.equal(proxy.held().closedConnections, 0, 'within the bound, nobody is closed');
    for (const client of clients) assert.equal((await client.drain(12 * MIB)).cut, false, 'within the bound, each gets it all');
  });

  it('closes the connections that took nothing for the longest once the bound is reached, and keeps serving', async () => {
    const origin = closing(await sizedOrigin());
    const proxy = await valkeyProxy(origin.url, { maxBodyBytes: 16 * MIB, maxHeldBytes: 40 * MIB });
    const paths = ['/12288/a', '/12288/b', '/12288/c', '/12288/d'];
    for (const path of paths) assert.equal(await readWhole(proxy, path), 12 * MIB);
    await proxy.idle();
    const clients = [];
    for (const [i, path] of paths.entries()) {
      clients.push(await stalledClient(proxy, [path]));
      assert.equal(proxy.held().bytes, Math.min(i + 1, 3) * 12 * MIB, `client ${i + 1} holds its body, and at most three are held`);
    }
    const drained = [];
    for (const client of clients) drained.push((await client.drain(12 * MIB)).cut);
    assert.equal(proxy.held().closedConnections, 1);
    assert.deepEqual(drained, [true, false, false, false], `${drained}: three bodies of 12 MiB fit in 40 MiB; the fourth pushed out the one stalled longest`);
    assert.equal(await readWhole(proxy, '/12288/a'), 12 * MIB, 'a client that reads still gets the whole body');
  });

  it('bounds what pipelined requests of one connection pile up, small bodies included', async () => {
    const origin = closing(await sizedOrigin());
    const proxy = await valkeyProxy(origin.url, { maxBodyBytes: 64 * 1024, maxHeldBytes: MIB });
    const paths = Array.from({ length: 200 }, (_, i) => `/60/${i}`);
    // Filled eight at a time: 200 readers at once hold 12 MB between them, over this proxy's bound
    // of 1 MiB, and on a loaded host the slowest of them would be closed as a reader that took nothing.
    for (let i = 0; i < paths.length; i += 8) await Promise.all(paths.slice(i, i + 8).map((path) => readWhole(proxy, path)));
    await proxy.idle();
    const client = await stalledClient(proxy, paths);
    await waitFor(() => proxy.held().closedConnections === 1, 'the connection that piled up 12 MB of responses it never read is closed');
    assert.equal(proxy.held().bytes, 0, 'and what it held is let go');
    assert.equal((await client.drain(paths.length * 60 * 1024)).cut, true);
  });

  it('closes a connection that takes nothing for writeTimeout, and only that one', async () => {
    const origin = closing(await sizedOrigin());
    const proxy = await valkeyProxy(origin.url, { maxBodyBytes: 16 * MIB, writeTimeout: '300ms' });
    assert.equal(await readWhole(proxy, '/12288/t'), 12 * MIB);
    await proxy.idle();
    const stalled = await stalledClient(proxy, ['/12288/t']);
    assert.equal(proxy.held().bytes, 12 * MIB, 'the stalled client holds the body');
    await waitFor(() => proxy.held().closedConnections === 1, 'the stalled client is closed after the write timeout');
    assert.equal(proxy.held().bytes, 0);
    assert.equal((await stalled.drain(12 * MIB)).cut, true);
    assert.equal(await readWhole(proxy, '/12288/t'), 12 * MIB, 'a reading client is unaffected');
  });

  it('refuses a bound below one stored body, and a write timeout of 0', async () => {
    const origin = closing(await sizedOrigin());
    await assert.rejects(valkeyProxy(origin.url, { maxBodyBytes: 2 * MIB, maxHeldBytes: MIB }), /"maxHeldBytes" must be an integer of at least "maxBodyBytes" \(2097152\)/);
    await assert.rejects(valkeyProxy(origin.url, { writeTimeout: 0 }), /"writeTimeout" must be above 0/);
  });
});
