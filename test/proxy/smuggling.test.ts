/**
 * Issue 10, item 1: request smuggling. Over raw sockets, because fetch would never send the
 * requests this is about. Each test replays a way the proxy and the origin could disagree on
 * where a message ends, and checks that the origin connection never carries a doubt forward.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'vitest';
import { cacheable, closesAfterEach, expectStatusForAll, proxyFor, rawExchange, rawGet, rawOrigin, recordingOrigin, statusOf, waitFor, type RecordingOrigin } from './support.ts';

const closing = closesAfterEach();

/** An origin answering every GET with its own path, fresh for a minute, and echoing bodies. */
async function echoOrigin(): Promise<RecordingOrigin> {
  return recordingOrigin((req, res, received) => cacheable(res, req.method === 'GET' ? `body of ${req.url}` : `echo ${received.body}`));
}

describe('proxy: request smuggling', () => {
  it('refuses a GET that carries a body (the reproduction: Content-Length 36 and another request as the body) and poisons nothing', async () => {
    const origin = closing(await echoOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const smuggled = 'GET /b HTTP/1.1\r\nHost: site.test\r\n\r\n';
    assert.equal(smuggled.length, 36);
    const attack = await rawExchange(proxy.port, `GET /a HTTP/1.1\r\nHost: site.test\r\nContent-Length: 36\r\n\r\n${smuggled}`);
    assert.equal(statusOf(attack), 400);
    assert.match(attack.text, /a GET request may not carry a body/);
    assert.match(attack.text, /\r\nconnection: close\r\n/i);
    assert.equal(attack.closedByServer, true, 'the connection whose framing is in doubt ends');
    assert.equal(origin.received.length, 0, 'nothing reached the origin');

    // Every later client gets its own URL's body, first from the origin, then from the cache.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${proxy.url}/c${i}`);
        assert.equal(await res.text(), `body of /c${i}`, `round ${round}, /c${i}`);
      }
    }
    assert.equal(origin.received.length, 10, 'the second round was served from the cache');
    assert.ok(
      origin.received.every((r) => r.headers['content-length'] === undefined),
      'no GET reached the origin with a Content-Length',
    );
  });

  it('refuses a HEAD with a chunked body too, and lets a GET with Content-Length: 0 through without it', async () => {
    const origin = closing(await echoOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const head = await rawExchange(proxy.port, 'HEAD /h HTTP/1.1\r\nHost: site.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
    assert.equal(statusOf(head), 400);
    const empty = await rawExchange(proxy.port, 'GET /z HTTP/1.1\r\nHost: site.test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', 2000);
    assert.equal(statusOf(empty), 200);
    assert.equal(origin.received.length, 1);
    assert.equal(origin.received[0]!.headers['content-length'], undefined);
  });

  it('answers 400 to conflicting or malformed framing before anything reaches the origin', async () => {
    const origin = closing(await echoOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const cases: Array<[string, string]> = [
      ['Content-Length and Transfer-Encoding', 'POST /p HTTP/1.1\r\nHost: site.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /x HTTP/1.1\r\n\r\n'],
      ['two different Content-Lengths', 'POST /p HTTP/1.1\r\nHost: site.test\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
      ['a Transfer-Encoding that does not end in chunked', 'POST /p HTTP/1.1\r\nHost: site.test\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n'],
      ['an unknown Transfer-Encoding', 'POST /p HTTP/1.1\r\nHost: site.test\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n'],
      ['a Content-Length that is not a number', 'POST /p HTTP/1.1\r\nHost: site.test\r\nContent-Length: 5x\r\n\r\nhello'],
      ['whitespace before the colon', 'POST /p HTTP/1.1\r\nHost: site.test\r\nContent-Length : 5\r\n\r\nhello'],
      ['a folded header line', 'POST /p HTTP/1.1\r\nHost: site.test\r\nX-A: 1\r\n Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello'],
    ];
    await expectStatusForAll(proxy.port, cases, 400);
    assert.equal(origin.received.length, 0);
  });

  it('forwards request bodies faithfully: declared lengths as declared, chunked bodies whole', async () => {
    const origin = closing(await echoOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const sized = await rawExchange(proxy.port, 'POST /p HTTP/1.1\r\nHost: site.test\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello world', 2000);
    assert.match(sized.text, /\r\necho hello world\r\n/);
    const chunked = await rawExchange(proxy.port, 'PUT /p HTTP/1.1\r\nHost: site.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n', 2000);
    assert.match(chunked.text, /\r\necho hello world\r\n/);
    assert.deepEqual(
      origin.received.map((r) => [r.method, r.body, r.complete]),
      [
        ['POST', 'hello world', true],
        ['PUT', 'hello world', true],
      ],
    );
    assert.equal(origin.received[0]!.headers['content-length'], '11');
  });

  it('cuts the origin request, and never reuses its connection, when the client stops mid-body', async () => {
    const origin = closing(await echoOrigin());
    const proxy = closing(await proxyFor(origin.url));
    await fetch(`${proxy.url}/warm`).then((r) => r.text());
    // Declares 100 bytes, sends 10, then goes away: the origin must not wait on, nor reuse, that connection.
    const client = connect(proxy.port, '127.0.0.1');
    client.on('error', () => {});
    client.write('POST /upload HTTP/1.1\r\nHost: site.test\r\nContent-Length: 100\r\n\r\n0123456789');
    await waitFor(() => origin.received.some((r) => r.url === '/upload'), 'the upload reached the origin');
    client.destroy();
    await waitFor(() => origin.received.some((r) => r.url === '/upload' && !r.complete), 'the origin saw the upload cut');
    const before = origin.connections();
    assert.equal(await (await fetch(`${proxy.url}/after`)).text(), 'body of /after');
    const after = origin.received.find((r) => r.url === '/after')!;
    const upload = origin.received.find((r) => r.url === '/upload')!;
    assert.notEqual(after.connection, upload.connection, 'the cut connection was not reused');
    assert.ok(origin.connections() >= before);
  });

  it("relays an origin's early answer to an upload it did not read, and the client connection stays usable", async () => {
    const raw = closing(
      await rawOrigin((_head, socket) => {
        socket.end('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!');
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    const upload = 'x'.repeat(4 * 1024 * 1024);
    const reply = await rawExchange(
      proxy.port,
      `POST /upload HTTP/1.1\r\nHost: site.test\r\nContent-Length: ${upload.length}\r\n\r\n${upload}GET /next HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`,
      3000,
    );
    assert.equal(statusOf(reply), 413);
    assert.match(reply.text, /\r\n\r\ntoo big!/);
    assert.equal(reply.text.match(/HTTP\/1\.1 413/g)?.length, 2, 'the pipelined request after the upload was framed and answered too');
  });

  it('answers 502 to an origin response with conflicting framing, and drops that connection', async () => {
    let n = 0;
    const raw = closing(
      await rawOrigin((head, socket) => {
        n++;
        if (n === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nCache-Control: max-age=60\r\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nevil!!');
        else socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: max-age=60\r\n\r\nok`);
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    const first = await fetch(`${proxy.url}/one`);
    assert.equal(first.status, 502);
    assert.match(await first.text(), /^Bad Gateway: the origin's response is malformed \(HPE_/);
    await waitFor(() => raw.closedConnections() >= 1);
    const second = await fetch(`${proxy.url}/two`);
    assert.equal(await second.text(), 'ok', 'the next request gets its own answer, not the smuggled one');
  });

  it('cuts the client connection when the origin body ends short of its Content-Length, and stores nothing', async () => {
    let n = 0;
    const raw = closing(
      await rawOrigin((_head, socket) => {
        n++;
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 10\r\nCache-Control: max-age=60\r\n\r\nshort`);
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    const reply = await rawGet(proxy.port, '/short');
    assert.equal(statusOf(reply), 200);
    assert.equal(reply.closedByServer, true);
    assert.ok(!reply.text.endsWith('short\r\n\r\n') && reply.text.split('\r\n\r\n')[1]!.length < 10, 'the client never gets a complete-looking body');
    await proxy.idle();
    await rawGet(proxy.port, '/short');
    assert.equal(n, 2, 'the cut body was not stored: the next request went to the origin');
  });
});
