/**
 * Issue 10, item 2: Host poisoning through the absolute form, and host forms that normalise.
 * The key and the Host the origin receives must always be the same authority.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { closesAfterEach, expectStatusForAll, headerOf, proxyFor, rawGet, recordingOrigin, statusOf, type RecordingOrigin } from './support.ts';

const closing = closesAfterEach();

/** An origin that redirects to its Host, as many do for a trailing slash: the reflection under test. */
function redirectingOrigin(): Promise<RecordingOrigin> {
  return recordingOrigin((req, res) => {
    res.writeHead(301, { location: `http://${req.headers.host}${req.url}/`, 'cache-control': 'max-age=60' });
    res.end();
  });
}

/** The key a raw reply was stored or looked up under (the proxy runs with cacheStatusKey). */
function keyOf(reply: { text: string }): string | undefined {
  return /key="([^"]*)"/.exec(reply.text)?.[1];
}

describe('proxy: the authority that is keyed is the one the origin gets', () => {
  it('uses the absolute-form authority, not an evil Host, for both (the reproduction)', async () => {
    const origin = closing(await redirectingOrigin());
    const proxy = closing(await proxyFor(origin.url, { cacheStatusKey: true }));
    const attack = await rawGet(proxy.port, 'http://real-host/x', { host: 'evil.example' });
    assert.equal(origin.received[0]!.headers.host, 'real-host');
    assert.equal(headerOf(attack, 'location'), 'http://real-host/x/');
    assert.equal(keyOf(attack), 'http://real-host/x');

    const victim = await rawGet(proxy.port, '/x', { host: 'real-host' });
    assert.match(headerOf(victim, 'cache-status') ?? '', /hit/);
    assert.equal(headerOf(victim, 'location'), 'http://real-host/x/', 'the stored redirect points where the victim asked');

    // An evil Host in origin form is its own key, and the origin sees exactly that Host.
    const own = await rawGet(proxy.port, '/x', { host: 'evil.example' });
    assert.equal(keyOf(own), 'http://evil.example/x');
    assert.equal(origin.received[1]!.headers.host, 'evil.example');
    assert.equal(origin.received.length, 2);
  });

  it('sends normalised host forms to the origin exactly as they are keyed', async () => {
    const origin = closing(await redirectingOrigin());
    const proxy = closing(await proxyFor(origin.url, { cacheStatusKey: true }));
    const cases: Array<[string, string]> = [
      ['Real-Host', 'real-host'],
      ['REAL-HOST:80', 'real-host'],
      ['real-host:0080', 'real-host'],
      ['real-host:08082', 'real-host:8082'],
      ['127.000.0.1', '127.0.0.1'],
      ['[0:0::1]:80', '[::1]'],
    ];
    for (const [sent, normal] of cases) {
      const before = origin.received.length;
      const reply = await rawGet(proxy.port, `/n?${encodeURIComponent(sent)}`, { host: sent });
      assert.equal(statusOf(reply), 301, sent);
      assert.equal(new URL(keyOf(reply)!).host, normal, `${sent}: key`);
      const seen = origin.received.slice(before).at(-1);
      // A form already stored under the same key is a hit: nothing new reaches the origin.
      if (seen) assert.equal(seen.headers.host, normal, `${sent}: Host at the origin`);
      assert.equal(headerOf(reply, 'location')?.startsWith(`http://${normal}/`), true, sent);
    }
  });

  it('refuses authorities and targets it cannot key unambiguously, before the origin', async () => {
    const origin = closing(await redirectingOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const refused: Array<[string, string]> = [
      ['two Host fields', 'GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n'],
      ['no Host field', 'GET / HTTP/1.1\r\n\r\n'],
      ['a Host with a path', 'GET / HTTP/1.1\r\nHost: evil.example/x\r\n\r\n'],
      ['a Host with user info', 'GET / HTTP/1.1\r\nHost: user@evil.example\r\n\r\n'],
      ['a Host with a space', 'GET / HTTP/1.1\r\nHost: a b\r\n\r\n'],
      ['a port out of range', 'GET / HTTP/1.1\r\nHost: a.test:70000\r\n\r\n'],
      ['an https absolute form on the http listener', 'GET https://real-host/ HTTP/1.1\r\nHost: real-host\r\n\r\n'],
      ['user info in the absolute form', 'GET http://user@real-host/ HTTP/1.1\r\nHost: real-host\r\n\r\n'],
      ['an asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: real-host\r\n\r\n'],
    ];
    await expectStatusForAll(proxy.port, refused, 400);
    await expectStatusForAll(proxy.port, [['TRACE', 'TRACE / HTTP/1.1\r\nHost: real-host\r\n\r\n']], 405);
    assert.equal(origin.received.length, 0);
  });

  it('keeps a path that looks like an authority a path', async () => {
    const origin = closing(await redirectingOrigin());
    const proxy = closing(await proxyFor(origin.url, { cacheStatusKey: true }));
    const reply = await rawGet(proxy.port, '//evil.example/x', { host: 'real-host' });
    assert.equal(keyOf(reply), 'http://real-host//evil.example/x');
    assert.equal(origin.received[0]!.headers.host, 'real-host');
    assert.equal(origin.received[0]!.url, '//evil.example/x');
  });
});
