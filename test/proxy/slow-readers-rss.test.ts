/**
 * Issue 27, item 12: hundreds of clients that ask at once for a large cached response and never
 * read. Each hit used to read and decode its own copy of the body (the reads of a tick fold into
 * one MGET that brings a copy per hit), so the proxy's RSS grew by about a copy per client
 * before any was found equal to the copy already held: the held-bytes bound counts distinct
 * bodies held, not what the hits keep referenced. Now concurrent lookups of one entry share one
 * read and one decode (src/http/shared-reads.ts). Measured from outside, as an operator would:
 * the proxy runs in a child process and its peak RSS is read from /proc, not from its account.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { closesAfterEach, recordingOrigin } from './support.ts';

const closing = closesAfterEach();
const MIB = 1024 * 1024;
const BODY_BYTES = 4 * MIB;
const CLIENTS = 200;
const PROXY = join(import.meta.dirname, 'proxy-process.ts');

const children: ChildProcess[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts the proxy in its own process; resolves its pid and port once it listens. */
async function proxyProcess(origin: string): Promise<{ pid: number; port: number }> {
  const job = { origin, redisUrl, namespace: `rss-${process.pid}-${Date.now().toString(36)}`, maxBodyBytes: 8 * MIB };
  const child = spawn(process.execPath, ['--import', 'tsx', PROXY, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the proxy process exited with ${code}: ${err}`)));
  });
  return { pid: child.pid!, port };
}

/** A field of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: the peak since the last reset). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  assert.ok(kib !== undefined, `/proc/${pid}/status has ${field}`);
  return Number(kib) * 1024;
}

/**
 * The peak RSS of `pid` once it has stopped rising: replies the store still sends after the
 * clients got their answers (a read that timed out still has its reply read) count too.
 */
async function settledPeak(pid: number): Promise<number> {
  let peak = memoryOf(pid, 'VmHWM');
  for (let still = 0, polls = 0; still < 5 && polls < 300; polls++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = memoryOf(pid, 'VmHWM');
    still = now === peak ? still + 1 : 0;
    peak = now;
  }
  return peak;
}

/**
 * A client connected and not asking yet; `ask` sends a GET and resolves the first bytes that
 * arrive (the head), after which nothing more is read.
 */
function stalledClient(port: number): Promise<{ ask(path: string): Promise<string> }> {
  return new Promise((connected) => {
    const socket = connect(port, '127.0.0.1', () => connected({ ask }));
    sockets.push(socket);
    socket.on('error', () => {});
    const ask = (path: string) =>
      new Promise<string>((resolve) => {
        socket.once('close', () => resolve(''));
        socket.once('readable', () => resolve(String(socket.read(512) ?? socket.read() ?? '')));
        socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
      });
  });
}

describe.runIf(requireRedis())('proxy: hundreds of clients that do not read, RSS measured from outside', () => {
  it(`${CLIENTS} clients asking at once for a cached ${BODY_BYTES / MIB} MiB response grow the proxy's peak RSS by far less than a copy each`, async () => {
    const origin = closing(
      await recordingOrigin((req, res) => {
        if (req.url !== '/big') return void res.writeHead(200, { 'cache-control': 'no-store', 'content-length': '2' }).end('ok');
        res.writeHead(200, { 'cache-control': 'max-age=600', 'content-type': 'application/octet-stream', 'content-length': String(BODY_BYTES) });
        res.end(Buffer.alloc(BODY_BYTES, 0x2e));
      }),
    );
    const proxy = await proxyProcess(origin.url);
    const url = `http://127.0.0.1:${proxy.port}/big`;
    assert.equal((await (await fetch(url)).arrayBuffer()).byteLength, BODY_BYTES);
    // The store write runs in the background: the entry is there once a request hits it.
    let status = '';
    for (let i = 0; i < 100 && !/; hit/.test(status); i++) {
      const response = await fetch(url);
      await response.arrayBuffer();
      status = response.headers.get('cache-status') ?? '';
    }
    assert.match(status, /; hit/, 'the response is cached');
    // Connected first, so that what is measured is what their requests cost, not their connections.
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => stalledClient(proxy.port)));
    await fetch(`http://127.0.0.1:${proxy.port}/ready`).then((response) => response.arrayBuffer());
    // Writing 5 to clear_refs starts a new peak (VmHWM) from the RSS now.
    writeFileSync(`/proc/${proxy.pid}/clear_refs`, '5');
    const base = memoryOf(proxy.pid, 'VmRSS');
    const heads = await Promise.all(clients.map((client) => client.ask('/big')));
    const grown = (await settledPeak(proxy.pid)) - base;
    // A copy each would be 800 MiB; one shared read is one copy, and a few more for the hits that
    // came after it settled. On a loaded machine the copies take longer than the engine's store
    // timeout to come back, and those hits turn into misses instead: the next assertion.
    assert.ok(grown < (CLIENTS * BODY_BYTES) / 8, `the peak RSS grew by ${(grown / MIB).toFixed(0)} MiB for ${CLIENTS} clients (a copy each: ${(CLIENTS * BODY_BYTES) / MIB} MiB)`);
    assert.equal(heads.filter((head) => /^cache-status: [^\r]*; hit/im.test(head)).length, CLIENTS, 'every client got a hit (no read timed out into a miss)');
    assert.deepEqual(
      origin.received.map((request) => request.url),
      ['/big', '/ready'],
      'the origin was asked to fill the cache, and once after every client connected',
    );
    // Without the shared read, a copy per hit takes a minute or more to come back on a loaded machine.
  }, 180_000);
});
