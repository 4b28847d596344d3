/**
 * Issue 23, item 4, the proxy's own half: its byte writer derives the framing from the body it
 * writes, whatever the answer it is handed says. The HTTP cache already refuses stored framing
 * on read (stored-framing.test.ts); this is the writer on its own, so that it does not depend on
 * that: answers with hostile framing fields written by `writeBytes` on a real node:http server,
 * read by a raw keep-alive client that pipelines the next request behind them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'vitest';
import type { BytesAnswer } from '../../src/http/index.ts';
import { HeldBytes } from '../../products/proxy/held-bytes.ts';
import { writeBytes } from '../../products/proxy/write-response.ts';
import { parseResponses, pipelinedGets, wireHeader } from '../http/wire.ts';
import { rawExchange } from './support.ts';

const FORGED = 'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 25\r\n\r\n<script>alert(1)</script>';
const bytes = (text: string) => new TextEncoder().encode(text);
const base: Array<[string, string]> = [['content-type', 'text/plain']];

const HOSTILE: Array<[what: string, answer: BytesAnswer]> = [
  ['a Content-Length shorter than the body (the reproduction)', { status: 200, headers: [...base, ['content-length', '5']], body: bytes(`hello${FORGED}`) }],
  ['a Content-Length longer than the body', { status: 200, headers: [...base, ['content-length', '100000']], body: bytes('short') }],
  ['Transfer-Encoding: chunked beside a Content-Length', { status: 200, headers: [...base, ['content-length', '5'], ['transfer-encoding', 'chunked']], body: bytes(`hello${FORGED}`) }],
  ['Transfer-Encoding: gzip, and no length', { status: 200, headers: [...base, ['transfer-encoding', 'gzip']], body: bytes(`hello${FORGED}`) }],
  ['Connection: close, Keep-Alive, Upgrade', { status: 200, headers: [...base, ['connection', 'close'], ['keep-alive', 'timeout=1'], ['upgrade', 'h2c']], body: bytes('hello') }],
];

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('proxy: the byte writer frames what it writes', () => {
  it('writes each answer with the length of its own body and no framing field it was handed, so the next response is its own', async () => {
    const held = new HeldBytes({ maxBytes: 1024 * 1024, writeTimeoutMs: 60_000 });
    let answer: BytesAnswer = HOSTILE[0]![1];
    server = createServer((req, res) => writeBytes(res, req.url === '/innocent' ? { status: 200, headers: base, body: bytes('innocent page') } : answer, held));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    for (const [what, hostile] of HOSTILE) {
      answer = hostile;
      const { responses, rest } = await pipelinedGets(port, 'site.test', ['/hostile', '/innocent']);
      assert.equal(responses.length, 2, `${what}: two requests, two responses: ${JSON.stringify(rest.slice(0, 200))}`);
      const [first, second] = responses as [(typeof responses)[0], (typeof responses)[0]];
      assert.equal(second.body, 'innocent page', `${what}: the second request got its own answer`);
      assert.equal(first.body, new TextDecoder().decode(hostile.body!), `${what}: the first got its whole body`);
      assert.deepEqual(
        first.headers.filter(([name]) => name === 'content-length'),
        [['content-length', String(hostile.body!.byteLength)]],
        `${what}: one Content-Length, the body's own`,
      );
      assert.equal(wireHeader(first, 'transfer-encoding'), undefined, what);
      assert.equal(wireHeader(first, 'upgrade'), undefined, what);
      assert.equal(wireHeader(first, 'connection'), 'keep-alive', `${what}: Node's own Connection, not the one handed`);
    }
  });

  it('keeps a numeric length on a bodiless answer (HEAD) and drops one that is no number', async () => {
    const held = new HeldBytes({ maxBytes: 1024 * 1024, writeTimeoutMs: 60_000 });
    let headers: Array<[string, string]> = [];
    server = createServer((_req, res) => writeBytes(res, { status: 200, headers, body: null }, held));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    for (const [length, expected] of [
      ['42', '42'],
      ['42, 7', undefined],
    ] as const) {
      headers = [...base, ['content-length', length], ['transfer-encoding', 'chunked']];
      const { responses } = parseResponses((await rawExchange(port, 'HEAD /head HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n', 1000)).text, new Set([0]));
      assert.equal(wireHeader(responses[0]!, 'transfer-encoding'), undefined, length);
      assert.equal(wireHeader(responses[0]!, 'content-length'), expected, length);
    }
  });
});
