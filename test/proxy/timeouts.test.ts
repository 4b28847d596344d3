/**
 * Issue 10, item 5 (the origin side): an origin that never answers, or never finishes its
 * body, no longer holds clients for ever. The HTTP cache owns the timeouts (`originTimeout`,
 * `originIdleTimeout`); the proxy's origin client honours the signal the cache aborts and
 * gives that origin connection up. Headers late → 504 for the request and every joiner (which
 * stale-if-error may answer); a body that stops → the body fails, every reader's connection is
 * cut; nothing is stored.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, it } from 'vitest';
import { runCli } from '../../products/cli/run.ts';
import { originClient } from '../../products/proxy/origin-client.ts';
import { closesAfterEach, proxyFor, rawGet, recordingOrigin, statusOf, terminal, waitFor } from './support.ts';

const closing = closesAfterEach();
// Responses the origin never finishes, ended after each test (before the origin closes).
const hanging = new Set<ServerResponse>();
afterEach(() => {
  for (const res of hanging) res.destroy();
  hanging.clear();
});

const FAST = { originTimeout: '300ms', originIdleTimeout: '300ms' } as const;

/** True once every response the origin left hanging lost its connection. */
const allGivenUp = () => [...hanging].every((res) => res.socket === null || res.socket.destroyed);

describe('proxy: origin timeouts', () => {
  it('answers 504 to the request and every joiner after one timeout when the origin sends no headers, and drops that connection', async () => {
    const origin = closing(await recordingOrigin((_req, res) => void hanging.add(res)));
    // Long enough that the joiners, sent once the first request reached the origin, join it on any machine.
    const proxy = closing(await proxyFor(origin.url, { originTimeout: '1s' }));
    const first = fetch(`${proxy.url}/never`);
    await waitFor(() => origin.received.length === 1, 'the first request reached the origin');
    const answers = await Promise.all([first, ...Array.from({ length: 2 }, () => fetch(`${proxy.url}/never`))]);
    const texts = await Promise.all(answers.map((res) => res.text()));
    assert.deepEqual(
      answers.map((res) => res.status),
      [504, 504, 504],
    );
    assert.match(texts[0]!, /^Gateway Timeout: the origin did not answer within 1000 ms/);
    for (const text of texts.slice(1)) assert.match(text, /^Gateway Timeout: the origin request this one waited for failed/);
    assert.equal(origin.received.length, 1, 'one origin request for the three waiting clients');
    await waitFor(allGivenUp, 'the timed-out origin connection was destroyed');
    const later = await fetch(`${proxy.url}/never`);
    assert.equal(later.status, 504);
    assert.equal(origin.received.length, 2, 'a client arriving after the timeout tries the origin again');
    assert.notEqual(origin.received[1]!.connection, origin.received[0]!.connection, 'on a new connection, never the timed-out one');
  });

  it('lets stale-if-error answer the 504 with the stored response', async () => {
    let now = Date.now();
    let stall = false;
    const origin = closing(
      await recordingOrigin((_req, res) => {
        if (stall) return void hanging.add(res);
        res.writeHead(200, { 'cache-control': 'max-age=1, stale-if-error=600', date: new Date(now).toUTCString() });
        res.end('stored copy');
      }),
    );
    const proxy = closing(await proxyFor(origin.url, { ...FAST, now: () => now }));
    assert.equal(await (await fetch(`${proxy.url}/s`)).text(), 'stored copy');
    await proxy.idle();
    now += 5000;
    stall = true;
    const res = await fetch(`${proxy.url}/s`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'stored copy');
    assert.match(res.headers.get('cache-status')!, /detail="stale-if-error"/);
  });

  it('cuts every reader when a shared body stops, and stores nothing', async () => {
    let first = true;
    const origin = closing(
      await recordingOrigin((_req, res) => {
        res.writeHead(200, { 'cache-control': 'max-age=60', 'content-length': '100' });
        if (first) {
          first = false;
          res.write('x'.repeat(10));
          hanging.add(res);
        } else {
          res.end('y'.repeat(100));
        }
      }),
    );
    const proxy = closing(await proxyFor(origin.url, FAST));
    const readers = await Promise.all(Array.from({ length: 3 }, () => rawGet(proxy.port, '/stall')));
    for (const reply of readers) {
      assert.equal(statusOf(reply), 200);
      assert.equal(reply.closedByServer, true);
      assert.ok(reply.text.split('\r\n\r\n')[1]!.length < 100, 'no reader got a complete body');
    }
    await proxy.idle();
    await waitFor(allGivenUp, 'the stalled origin connection was destroyed');
    const next = await fetch(`${proxy.url}/stall`);
    assert.equal((await next.text()).length, 100);
    assert.equal(origin.received.length, 2, 'the cut body was not stored');
  });

  it('cuts a body passed through unstored when it stops, and gives its origin connection up', async () => {
    const origin = closing(
      await recordingOrigin((_req, res) => {
        res.writeHead(200, { 'cache-control': 'no-store', 'content-length': '100' });
        res.write('x'.repeat(10));
        hanging.add(res);
      }),
    );
    const proxy = closing(await proxyFor(origin.url, FAST));
    const reply = await rawGet(proxy.port, '/private');
    assert.equal(statusOf(reply), 200);
    assert.equal(reply.closedByServer, true, 'the client learns the body was cut');
    assert.equal(reply.text.split('\r\n\r\n')[1], 'x'.repeat(10));
    await waitFor(allGivenUp, 'the stalled origin connection was destroyed');
  });

  it('does not count a slow reader as an idle origin', async () => {
    const size = 4 * 1024 * 1024;
    const origin = closing(
      await recordingOrigin((_req, res) => {
        res.writeHead(200, { 'cache-control': 'no-store', 'content-length': String(size) });
        res.end(Buffer.alloc(size, 0x61));
      }),
    );
    const proxy = closing(await proxyFor(origin.url, FAST));
    const received = await new Promise<number>((resolve, reject) => {
      const socket = connect(proxy.port, '127.0.0.1');
      let bytes = 0;
      socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      socket.on('end', () => resolve(bytes));
      socket.on('error', reject);
      socket.write('GET /big HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n');
      // Reads nothing for three idle timeouts, then everything.
      socket.pause();
      setTimeout(() => socket.resume(), 900);
    });
    assert.ok(received > size, `got ${received} bytes of a ${size}-byte body plus its head`);
  });

  it('takes its timeouts from the command line flags', async () => {
    const origin = closing(await recordingOrigin((_req, res) => void hanging.add(res)));
    const io = terminal();
    const started = await runCli(['proxy', '--origin', origin.url, '--port', '0', '--headers-timeout', '200ms', '--body-idle-timeout', '200ms'], io);
    assert.equal(typeof started, 'object', io.stderr.join('\n'));
    closing({ close: () => (started as { stop(): Promise<void> }).stop() });
    const url = /cachette proxy: (http:\/\/\S+)/.exec(io.stdout[0]!)![1]!;
    const res = await fetch(`${url}/never`);
    assert.equal(res.status, 504);
    assert.match(await res.text(), /within 200 ms/);
  });
});

describe('proxy: the origin client and the abort signal', () => {
  it('rejects with the reason and destroys the connection when aborted before the headers', async () => {
    const origin = closing(await recordingOrigin((_req, res) => void hanging.add(res)));
    const client = originClient(new URL(origin.url));
    closing({ close: async () => client.close() });
    const controller = new AbortController();
    const sent = client.send(new Request(`${origin.url}/slow`, { signal: controller.signal }));
    await waitFor(() => origin.received.length === 1, 'the request reached the origin');
    const reason = new Error('late');
    controller.abort(reason);
    await assert.rejects(sent, (error) => error === reason);
    await waitFor(allGivenUp, 'the aborted connection was destroyed');
    const already = new AbortController();
    already.abort(reason);
    await assert.rejects(client.send(new Request(`${origin.url}/x`, { signal: already.signal })), (error) => error === reason);
    assert.equal(origin.received.length, 1, 'an already aborted request is never sent');
  });

  it('fails the body and never reuses the connection when aborted after the headers', async () => {
    const origin = closing(
      await recordingOrigin((req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        if (req.url === '/partial') {
          res.write('x'.repeat(10));
          hanging.add(res);
        } else {
          res.end('y'.repeat(100));
        }
      }),
    );
    const client = originClient(new URL(origin.url));
    closing({ close: async () => client.close() });
    const controller = new AbortController();
    const res = await client.send(new Request(`${origin.url}/partial`, { signal: controller.signal }));
    const reader = res.body!.getReader();
    assert.equal((await reader.read()).value!.byteLength, 10);
    controller.abort(new Error('idle'));
    await assert.rejects(reader.read(), /idle/);
    await waitFor(allGivenUp, 'the aborted connection was destroyed');
    const next = await client.send(new Request(`${origin.url}/whole`));
    assert.equal((await next.text()).length, 100);
    assert.notEqual(origin.received[1]!.connection, origin.received[0]!.connection);
  });
});
