/**
 * Issue 10, item 3, and issue 23, item 8: unkeyed forwarding headers. By default the client's
 * (the whole family: X-Forwarded-*, X-Original-*, X-Host, X-HTTP-*-Override, CF-*, …) are
 * dropped and the proxy sets its own; trusted, the ones the cache keys on reach the origin, and
 * the rest of the family is still dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { isForwardingField, TRUSTED_FORWARDING_FIELDS, TRUSTED_KEYED_FIELDS } from '../../products/proxy/index.ts';
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

/**
 * Fields frameworks read the scheme, host or method from besides the X-Forwarded-Host/-Proto
 * pair: Rack takes the scheme from X-Forwarded-Ssl and X-Forwarded-Scheme, others the host from
 * X-Host, X-Forwarded-Server, X-Original-Host or X-HTTP-Host-Override, IIS the scheme from
 * Front-End-Https and X-ARR-SSL, Tornado from X-Scheme, apps behind Cloudflare from CF-Visitor.
 */
const UNKEYED: Record<string, string> = {
  'x-forwarded-ssl': 'on',
  'x-forwarded-scheme': 'https',
  'x-host': 'evil.example',
  'x-forwarded-server': 'evil.example',
  'x-original-host': 'evil.example',
  'x-http-host-override': 'evil.example',
  'front-end-https': 'on',
  'x-arr-ssl': 'yes',
  'x-url-scheme': 'https',
  'x-scheme': 'https',
  'cf-visitor': '{"scheme":"https"}',
  'fastly-ssl': '1',
  'x-http-method-override': 'DELETE',
  'x-method-override': 'DELETE',
  'x-http-method': 'DELETE',
  'true-client-ip': '6.6.6.6',
  'cf-connecting-ip': '6.6.6.6',
  'x-proxyuser-ip': '6.6.6.6',
  'x-client-ip': '6.6.6.6',
  'x-envoy-original-path': '/admin',
};

/** An origin that reads every field of UNKEYED the way some framework does, into the redirect it answers. */
function permissiveOrigin(): Promise<RecordingOrigin> {
  return recordingOrigin((req, res) => {
    const h = req.headers;
    const https =
      h['x-forwarded-ssl'] === 'on' ||
      h['x-forwarded-scheme'] === 'https' ||
      h['front-end-https'] === 'on' ||
      h['x-arr-ssl'] !== undefined ||
      h['x-url-scheme'] === 'https' ||
      h['x-scheme'] === 'https' ||
      String(h['cf-visitor']).includes('https') ||
      h['fastly-ssl'] !== undefined;
    const host = h['x-host'] ?? h['x-forwarded-server'] ?? h['x-original-host'] ?? h['x-http-host-override'] ?? h.host;
    const method = h['x-http-method-override'] ?? h['x-method-override'] ?? h['x-http-method'] ?? req.method;
    const client = h['true-client-ip'] ?? h['cf-connecting-ip'] ?? h['x-proxyuser-ip'] ?? h['x-client-ip'] ?? 'proxy';
    const path = h['x-envoy-original-path'] ?? req.url;
    res.writeHead(302, { location: `${https ? 'https' : 'http'}://${host}${path}`, 'x-method': String(method), 'x-client': String(client), 'cache-control': 'max-age=60' });
    res.end();
  });
}

describe('proxy: forwarding headers', () => {
  it('drops the whole family of forwarding fields, trusted or not, unless the cache keys on them (the reproduction: 12 probes, 12 poisoned redirects)', async () => {
    for (const trustForwarded of [false, true]) {
      const origin = closing(await permissiveOrigin());
      const proxy = closing(await proxyFor(origin.url, { trustForwarded }));
      for (const [name, value] of Object.entries(UNKEYED)) {
        const path = `/${trustForwarded ? 'trusted' : 'plain'}/${name}`;
        const probe = await rawGet(proxy.port, path, { [name]: value });
        assert.equal(headerOf(probe, 'location'), `http://site.test${path}`, `${name} (trustForwarded: ${trustForwarded})`);
        assert.equal(headerOf(probe, 'x-method'), 'GET', name);
        assert.equal(headerOf(probe, 'x-client'), 'proxy', name);
        const victim = await rawGet(proxy.port, path);
        assert.match(headerOf(victim, 'cache-status') ?? '', /hit/, name);
        assert.equal(headerOf(victim, 'location'), `http://site.test${path}`, `${name}: what the next visitor gets`);
      }
      for (const received of origin.received) for (const name of Object.keys(UNKEYED)) assert.equal(received.headers[name], undefined, name);
    }
  });

  it('names the family in isForwardingField, and leaves ordinary fields alone', () => {
    for (const name of [
      ...Object.keys(UNKEYED),
      ...TRUSTED_FORWARDING_FIELDS,
      'x-forwarded-anything',
      'x-original-uri',
      'x-real-port',
      'cf-ipcountry',
      'fastly-client-ip',
      'x-http-destination-override',
    ]) {
      assert.ok(isForwardingField(name), name);
    }
    for (const name of ['accept', 'cookie', 'cache-control', 'content-type', 'x-requested-with', 'x-http-version', 'forwarded-by-me', 'fastly', 'via', 'cdn-loop', 'x-hosted']) {
      assert.ok(!isForwardingField(name), name);
    }
  });

  it("drops the client's, sets its own, and stores no reflected redirect (the reproduction)", async () => {
    const origin = closing(await reflectingOrigin());
    const proxy = closing(await proxyFor(origin.url));
    const attack = await rawGet(proxy.port, '/r', EVIL);
    assert.equal(headerOf(attack, 'location'), 'http://site.test/r');
    const seen = origin.received[0]!.headers;
    for (const name of TRUSTED_FORWARDING_FIELDS) {
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
