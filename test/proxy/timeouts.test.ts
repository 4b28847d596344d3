/**
 * Issue 10, item 5 (the origin side): an origin that never answers, or never finishes its
 * body, no longer holds clients for ever. Headers late → 504 (which stale-if-error may answer);
 * a body that stops → the body fails and every reader's connection is cut; nothing is stored.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, it } from 'vitest';
import { TimeoutMemo } from '../../runtimes/node/proxy/timeout-memo.ts';
import { closesAfterEach, proxyFor, rawGet, recordingOrigin, statusOf, waitFor, type RecordingOrigin } from './support.ts';

const closing = closesAfterEach();
// Responses the origin never finishes, ended after each test (before the origin closes).
const hanging = new Set<ServerResponse>();
afterEach(() => {
  for (const res of hanging) res.destroy();
  hanging.clear();
});

const FAST = { headers: '300ms', bodyIdle: '300ms' } as const;

describe('proxy: origin timeouts', () => {
  it('answers 504 to every waiting client after one timeout when the origin sends no headers, and drops that connection', async () => {
    const origin = closing(await recordingOrigin((_req, res) => void hanging.add(res)));
    const proxy = closing(await proxyFor(origin.url, { originTimeout: FAST }));
    const answers = await Promise.all(Array.from({ length: 3 }, () => fetch(`${proxy.url}/never`)));
    for (const res of answers) {
      assert.equal(res.status, 504);
      assert.match(await res.text(), /^Gateway Timeout: the origin sent no response headers within 300 ms/);
    }
    // The cache lets joiners forward again after an answer it cannot share; those that already
    // waited through this URL's timeout get the 504 at once instead of a timeout each, in turn.
    assert.equal(origin.received.length, 1, 'one origin request for the three waiting clients');
    const later = await fetch(`${proxy.url}/never`);
    assert.equal(later.status, 504);
    assert.equal(origin.received.length, 2, 'a client arriving after the timeout tries the origin again');
    await waitFor(() => [...hanging].every((res) => res.socket === null || res.socket.destroyed), 'every origin connection was given up');
  });

  it('lets stale-if-error answer the 504 with the stored response', async () => {
    let now = Date.now();
    let stall = false;
    const origin = closing(await recordingOrigin((_req, res) => {
      if (stall) return void hanging.add(res);
      res.writeHead(200, { 'cache-control': 'max-age=1, stale-if-error=600', date: new Date(now).toUTCString() });
      res.end('stored copy');
    }));
    const proxy = closing(await proxyFor(origin.url, { originTimeout: FAST, now: () => now }));
    assert.equal(await (await fetch(`${proxy.url}/s`)).text(), 'stored copy');
    await proxy.idle();
    now += 5000;
    stall = true;
    const res = await fetch(`${proxy.url}/s`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'stored copy');
    assert.match(res.headers.get('cache-status')!, /fwd-status=504; .*detail="stale-if-error"|stale-if-error/);
  });

  it('cuts every reader when the body stops, and stores nothing', async () => {
    let first = true;
    const origin = closing(await recordingOrigin((_req, res) => {
      res.writeHead(200, { 'cache-control': 'max-age=60', 'content-length': '100' });
      if (first) {
        first = false;
        res.write('x'.repeat(10));
        hanging.add(res);
      } else {
        res.end('y'.repeat(100));
      }
    }));
    const proxy = closing(await proxyFor(origin.url, { originTimeout: FAST }));
    const readers = await Promise.all(Array.from({ length: 3 }, () => rawGet(proxy.port, '/stall')));
    for (const reply of readers) {
      assert.equal(statusOf(reply), 200);
      assert.equal(reply.closedByServer, true);
      assert.ok(reply.text.split('\r\n\r\n')[1]!.length < 100, 'no reader got a complete body');
    }
    await proxy.idle();
    const next = await fetch(`${proxy.url}/stall`);
    assert.equal((await next.text()).length, 100);
    assert.equal(origin.received.length, 2, 'the cut body was not stored');
  });

  it('does not count a slow reader as an idle origin', async () => {
    const size = 4 * 1024 * 1024;
    const origin = closing(await recordingOrigin((_req, res) => {
      res.writeHead(200, { 'cache-control': 'no-store', 'content-length': String(size) });
      res.end(Buffer.alloc(size, 0x61));
    }));
    const proxy = closing(await proxyFor(origin.url, { originTimeout: FAST }));
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
});

describe('proxy: the memo of timed-out URLs', () => {
  it('answers for clients that waited since before the timeout, and stays bounded', () => {
    const memo = new TimeoutMemo(1000, 2);
    memo.record('http://a/x', 5000);
    assert.equal(memo.timedOutSince('http://a/x', 4000), true, 'waiting since before it fired');
    assert.equal(memo.timedOutSince('http://a/x', 5001), false, 'arrived after it fired');
    assert.equal(memo.timedOutSince('http://a/y', 0), false);
    memo.record('http://a/y', 5100);
    memo.record('http://a/z', 5200);
    assert.equal(memo.timedOutSince('http://a/x', 0), false, 'the oldest went first past maxEntries');
    memo.record('http://a/w', 7000);
    assert.equal(memo.timedOutSince('http://a/y', 0), false, 'entries older than the window go');
    assert.equal(memo.timedOutSince('http://a/w', 6500), true);
  });
});
