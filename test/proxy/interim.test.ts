/**
 * Issue 11, item 3: interim responses (RFC 9110 §15.2), relayed to the client whose request
 * reached the origin, never stored; and item 6's last rule: a status HTTP does not define is
 * a 502 that says so, not a 500.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { MAX_INTERIM_RESPONSES } from '../../products/proxy/interim.ts';
import { closesAfterEach, headerOf, proxyFor, rawExchange, rawGet, rawOrigin, recordingOrigin, statusOf, waitFor } from './support.ts';

const closing = closesAfterEach();
const PRELOAD = '</style.css>; rel=preload; as=style';

/** The status codes of every response head in a raw reply, in order (1xx first). */
function statuses(text: string): number[] {
  return [...text.matchAll(/(?:^|\r\n\r\n)HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
}

describe('proxy: interim responses', () => {
  it('relays 103 Early Hints before the response, and a hit carries neither the 103 nor its fields', async () => {
    const origin = closing(
      await recordingOrigin((_req, res) => {
        res.writeEarlyHints({ link: [PRELOAD, '</app.js>; rel=preload; as=script'], 'x-hint': 'early' });
        res.writeHead(200, { 'cache-control': 'max-age=60', 'content-type': 'text/html' });
        res.end('<html>');
      }),
    );
    const proxy = closing(await proxyFor(origin.url));
    const miss = await rawGet(proxy.port, '/page');
    assert.deepEqual(statuses(miss.text), [103, 200]);
    const hints = miss.text.split('\r\n\r\n')[0]!;
    assert.match(hints, /^HTTP\/1\.1 103 Early Hints\r\n/);
    assert.match(hints, /\r\nLink: <\/style\.css>; rel=preload; as=style, <\/app\.js>; rel=preload; as=script/i);
    assert.match(hints, /\r\nx-hint: early/i);
    assert.equal(headerOf(miss, 'link'), undefined, 'the hints are not folded into the final response');

    const hit = await rawGet(proxy.port, '/page');
    assert.deepEqual(statuses(hit.text), [200]);
    assert.match(headerOf(hit, 'cache-status') ?? '', /hit/);
    assert.equal(headerOf(hit, 'link'), undefined);
    assert.equal(headerOf(hit, 'x-hint'), undefined);
    assert.equal(origin.received.length, 1);
  });

  it('relays 102 Processing and several 103s in order, and nothing to an HTTP/1.0 client', async () => {
    const raw = closing(
      await rawOrigin((_head, socket) => {
        socket.write('HTTP/1.1 102 Processing\r\n\r\n');
        socket.write(`HTTP/1.1 103 Early Hints\r\nLink: ${PRELOAD}\r\n\r\n`);
        socket.write('HTTP/1.1 103 Early Hints\r\nLink: </font.woff2>; rel=preload; as=font\r\n\r\n');
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: no-store\r\n\r\nok');
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    const modern = await rawGet(proxy.port, '/p');
    assert.deepEqual(statuses(modern.text), [102, 103, 103, 200]);
    assert.match(modern.text, /font\.woff2/);
    const old = await rawExchange(proxy.port, 'GET /p HTTP/1.0\r\nHost: site.test\r\n\r\n', 2000);
    assert.deepEqual(old.text.match(/HTTP\/1\.1 (\d{3})/g), ['HTTP/1.1 200'], 'an HTTP/1.0 client never gets a 1xx');
  });

  it(`relays at most ${MAX_INTERIM_RESPONSES} interim responses per request`, async () => {
    const raw = closing(
      await rawOrigin((_head, socket) => {
        for (let i = 0; i < 100; i++) socket.write(`HTTP/1.1 103 Early Hints\r\nLink: </r${i}>; rel=preload\r\n\r\n`);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: no-store\r\n\r\nok');
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    const reply = await rawGet(proxy.port, '/many');
    const codes = statuses(reply.text);
    assert.equal(codes.filter((c) => c === 103).length, MAX_INTERIM_RESPONSES);
    assert.equal(codes.at(-1), 200);
  });
});

describe('proxy: origin statuses HTTP does not define', () => {
  it('answers 502 with a clear message to a status outside 100-599, and to a 101 nobody asked for', async () => {
    const raw = closing(
      await rawOrigin((head, socket) => {
        if (head.startsWith('GET /999')) socket.write('HTTP/1.1 999 Odd\r\nContent-Length: 2\r\nCache-Control: max-age=60\r\n\r\nno');
        else if (head.startsWith('GET /600')) socket.write('HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\nno');
        else socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: evil\r\n\r\n');
      }),
    );
    const proxy = closing(await proxyFor(raw.url));
    for (const status of [999, 600]) {
      const res = await fetch(`${proxy.url}/${status}`);
      assert.equal(res.status, 502);
      // The cache's own 502 (the origin client hands it the status): it names the status in Cache-Status too.
      assert.equal(await res.text(), `Bad Gateway: the origin answered with status ${status}, outside the 100–599 range HTTP allows\n`);
      assert.match(res.headers.get('cache-status')!, new RegExp(`fwd-status=${status}; detail="origin-status"`));
    }
    // The body of such an answer is never read: its connection is given up, not reused.
    await waitFor(() => raw.closedConnections() >= 2, "both odd answers' connections were closed");
    const upgraded = await fetch(`${proxy.url}/switch`);
    assert.equal(upgraded.status, 502);
    assert.match(await upgraded.text(), /switched protocols \(101\) although the request asked for no upgrade/);
    const again = await rawGet(proxy.port, '/999');
    assert.equal(statusOf(again), 502, 'never stored');
  });

  it('serves a stored copy that stale-if-error allows instead of the 502', async () => {
    let odd = false;
    let now = Date.now();
    const raw = closing(
      await rawOrigin((_head, socket) => {
        if (odd) socket.write('HTTP/1.1 999 Odd\r\nContent-Length: 2\r\n\r\nno');
        else socket.write(`HTTP/1.1 200 OK\r\nDate: ${new Date(now).toUTCString()}\r\nCache-Control: max-age=1, stale-if-error=600\r\nContent-Length: 4\r\n\r\ngood`);
      }),
    );
    const proxy = closing(await proxyFor(raw.url, { now: () => now }));
    assert.equal(await (await fetch(`${proxy.url}/page`)).text(), 'good');
    await proxy.idle();
    odd = true;
    now += 5000;
    const res = await fetch(`${proxy.url}/page`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'good');
    assert.match(res.headers.get('cache-status')!, /fwd-status=999; .*detail="stale-if-error"/);
  });
});
