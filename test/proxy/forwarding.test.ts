/**
 * Issue 10, item 3: unkeyed forwarding headers. By default the client's are dropped and the
 * proxy sets its own; trusted, they reach the origin and the cache keys on them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { FORWARDING_FIELDS, TRUSTED_KEYED_FIELDS } from '../../runtimes/node/proxy/index.ts';
import { closesAfterEach, headerOf, proxyFor, rawGet, recordingOrigin, type RecordingOrigin } from './support.ts';

const closing = closesAfterEach();

/** Redirects to the forwarded host and scheme, as frameworks behind a proxy do: the reflection under test. */
function reflectingOrigin(): Promise<RecordingOrigin> {
  return recordingOrigin((req, res) => {
    const proto = req.headers['x-forwarded-proto'] ?? 'http';
    const host = req.headers['x-forwarded-host'] ?? req.headers.host;
    const path = req.headers['x-original-url'] ?? req.headers['x-rewrite-url'] ?? req.url;
    res.writeHead(302, { location: `${proto}://${host}${path}`, 'cache-control': 'max-age=60' });
    res.end();
  });
}

const EVIL = {
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'gopher',
  'x-forwarded-for': '6.6.6.6',
  'x-forwarded-port': '666',
  'x-forwarded-prefix': '/evil',
  forwarded: 'for=6.6.6.6;host=evil.example;proto=gopher',
  'x-original-url': '/admin',
  'x-rewrite-url': '/admin',
  'x-real-ip': '6.6.6.6',
};

describe('proxy: forwarding headers', () => {
  it("drops the client's, sets its own, and stores no reflected redirect (the reproduction)", async () => {
    const origin = closing(await reflectingOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const attack = await rawGet(proxy.port, '/r', EVIL);
    assert.equal(headerOf(attack, 'location'), 'http://site.test/r');
    const seen = origin.received[0]!.headers;
    for (const name of FORWARDING_FIELDS) {
      if (name === 'x-forwarded-for' || name === 'x-forwarded-host' || name === 'x-forwarded-proto') continue;
      assert.equal(seen[name], undefined, name);
    }
    assert.equal(seen['x-forwarded-for'], '127.0.0.1', 'the address the connection came from');
    assert.equal(seen['x-forwarded-host'], 'site.test', 'the keyed authority');
    assert.equal(seen['x-forwarded-proto'], 'http');
    assert.equal(seen.via, '1.1 cachette');

    const victim = await rawGet(proxy.port, '/r');
    assert.match(headerOf(victim, 'cache-status') ?? '', /hit/);
    assert.equal(headerOf(victim, 'location'), 'http://site.test/r');
  });

  it('drops forwarding fields a client smuggles through Connection and other spellings too', async () => {
    const origin = closing(await reflectingOrigin());
    const proxy = closing(await proxyFor(origin.url));
    await rawGet(proxy.port, '/c', { 'X-Forwarded-Host': 'evil.example', connection: 'close, X-Forwarded-Host', 'X-FORWARDED-PROTO': 'gopher' });
    const seen = origin.received[0]!.headers;
    assert.equal(seen['x-forwarded-host'], 'site.test');
    assert.equal(seen['x-forwarded-proto'], 'http');
  });

  it("when trusted, passes them on and keys on them, so one front's answer never reaches another", async () => {
    const origin = closing(await reflectingOrigin());
    const proxy = closing(await proxyFor(origin.url, { trustForwarded: true, cacheStatusKey: true }));
    const a = await rawGet(proxy.port, '/t', { 'x-forwarded-host': 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.0.0.1' });
    const b = await rawGet(proxy.port, '/t', { 'x-forwarded-host': 'b.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.0.0.2' });
    const plain = await rawGet(proxy.port, '/t');
    assert.equal(headerOf(a, 'location'), 'https://a.example/t');
    assert.equal(headerOf(b, 'location'), 'https://b.example/t');
    assert.equal(headerOf(plain, 'location'), 'http://site.test/t');
    assert.equal(origin.received.length, 3, 'three fronts, three variants');
    assert.equal(origin.received[0]!.headers['x-forwarded-for'], '10.0.0.1, 127.0.0.1', 'the proxy appends the address it saw');
    const vary = headerOf(a, 'vary')!.split(/,\s*/);
    for (const name of TRUSTED_KEYED_FIELDS) assert.ok(vary.includes(name), name);
    assert.ok(!vary.includes('x-forwarded-for'), 'client addresses are not keyed: one variant per client would defeat the cache');

    const again = await rawGet(proxy.port, '/t', { 'x-forwarded-host': 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.9.9.9' });
    assert.match(headerOf(again, 'cache-status') ?? '', /hit/);
    assert.equal(headerOf(again, 'location'), 'https://a.example/t');

    assert.ok((await proxy.purge({ url: 'http://site.test/t' })) >= 1);
    const purged = await rawGet(proxy.port, '/t', { 'x-forwarded-host': 'b.example', 'x-forwarded-proto': 'https' });
    assert.doesNotMatch(headerOf(purged, 'cache-status') ?? '', /hit/, "purging the URL drops every front's variant");
    assert.equal(origin.received.length, 4);
  });
});
