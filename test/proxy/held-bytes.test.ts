/**
 * The proxy's account of bytes held for clients (held-bytes.ts), on real loopback sockets:
 * which connection is closed when the bound is reached, what is shared, what is let go.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { HeldBytes } from '../../products/proxy/held-bytes.ts';
import { waitFor } from './support.ts';

let server: Server;
let accepted: Socket[];
const clients: Socket[] = [];

beforeEach(async () => {
  accepted = [];
  server = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  for (const socket of [...clients.splice(0), ...accepted]) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** `n` server-side sockets of real connections. */
async function connections(n: number): Promise<Socket[]> {
  const port = (server.address() as { port: number }).port;
  for (let i = 0; i < n; i++) {
    const client = connect(port, '127.0.0.1');
    client.on('error', () => {});
    clients.push(client);
  }
  await waitFor(() => accepted.length === n, 'connections accepted');
  return accepted.slice();
}

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

describe('proxy: bytes held for clients', () => {
  it('closes the connection that made no progress for the longest, not the newest one', async () => {
    const [a, b, c] = (await connections(3)) as [Socket, Socket, Socket];
    const held = new HeldBytes({ maxBytes: 25, writeTimeoutMs: 60_000 });
    const first = held.hold(a, bytes(10, 1));
    held.hold(b, bytes(10, 2));
    first.progress();
    held.hold(c, bytes(10, 3));
    assert.deepEqual([a.destroyed, b.destroyed, c.destroyed], [false, true, false], 'b took nothing since before a did');
    assert.deepEqual(held.stats(), { bytes: 20, closedConnections: 1 });
  });

  it('lets a response hold its own body past the bound, but not a pile of them on one connection', async () => {
    const [a, b] = (await connections(2)) as [Socket, Socket];
    const held = new HeldBytes({ maxBytes: 15, writeTimeoutMs: 60_000 });
    held.hold(a, bytes(20, 1));
    assert.equal(a.destroyed, false, 'one body larger than the bound is still written');
    held.hold(b, bytes(5, 2));
    held.hold(b, bytes(5, 3));
    assert.equal(a.destroyed, true, 'the stalled one goes first');
    assert.equal(b.destroyed, false);
    held.hold(b, bytes(10, 4));
    assert.equal(b.destroyed, true, 'a connection piling up bodies over the bound is closed itself');
    assert.deepEqual(held.stats(), { bytes: 0, closedConnections: 2 });
  });

  it('shares equal bytes, never bytes that merely have the same length, and counts them once', async () => {
    const [a, b] = (await connections(2)) as [Socket, Socket];
    const held = new HeldBytes({ maxBytes: 1000, writeTimeoutMs: 60_000 });
    const original = bytes(100, 7);
    assert.equal(held.share(original), original, 'nothing held yet');
    const holding = held.hold(a, original);
    const copy = bytes(100, 7);
    assert.equal(held.share(copy), original, 'an equal copy is written from the held one');
    const other = bytes(100, 7);
    other[99] = 8;
    assert.equal(held.share(other), other, 'one differing byte: not shared');
    held.hold(b, held.share(copy));
    assert.equal(held.stats().bytes, 100, 'two clients, one copy');
    holding.release();
    holding.release();
    assert.equal(held.stats().bytes, 100, 'still held for b; releasing twice counts once');
  });

  it('lets go of everything when a connection closes, and closes one that takes nothing for the write timeout', async () => {
    const [a, b] = (await connections(2)) as [Socket, Socket];
    const held = new HeldBytes({ maxBytes: 1000, writeTimeoutMs: 100 });
    const timed = new HeldBytes({ maxBytes: 1000, writeTimeoutMs: 60_000 });
    timed.hold(a, bytes(10));
    timed.hold(a, bytes(20, 2));
    a.destroy();
    await waitFor(() => timed.stats().bytes === 0, 'released on close');
    assert.equal(timed.stats().closedConnections, 0, 'a client that went away was not closed by the proxy');
    held.hold(b, bytes(10));
    await waitFor(() => b.destroyed, 'closed after the write timeout');
    assert.deepEqual(held.stats(), { bytes: 0, closedConnections: 1 });
  });
});
