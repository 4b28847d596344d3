/**
 * Issue 13, item 7: the `cachette` bin as a user gets it — the packed tarball (packed once
 * for test/package, pack-setup.ts) installed into a fresh app, run with npx, and the proxy run
 * for real against a tiny origin. Optional peers (iovalkey, hono) are not installed:
 * `cachette proxy` must not need them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { runInApp } from './run-in-app.ts';
import { sharedApp, type SharedApp } from './shared-apps.ts';
import { cacheable, closesAfterEach, recordingOrigin, spawnProxyCommand } from '../proxy/support.ts';

const closing = closesAfterEach();
/** The shared `bare` app (shared-apps.ts): the package's own dependencies and Node's types, no optional peer. */
let app: SharedApp;
/** Where npm put the package's bin. */
let bin: string;

/** Runs a command in the app. */
const inApp = (file: string, args: string[]) => runInApp(app.dir, file, args);

describe('the packed package', () => {
  beforeAll(async () => {
    app = await sharedApp('bare', 'proxy-bin');
    bin = join(app.root, 'node_modules/.bin/cachette');
  }, 360_000);

  it('answers `npx cachette --help` and refuses a scheme-less origin', async () => {
    const help = await inApp('npx', ['cachette', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage: cachette <command>/);
    const bad = await inApp('npx', ['cachette', 'proxy', '--origin', '127.0.0.1:8000']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--origin: the origin must be an absolute http:\/\/ or https:\/\/ URL/);
  }, 60_000);

  it('runs the proxy against a tiny origin, then stops on SIGTERM', async () => {
    const origin = closing(await recordingOrigin((req, res) => cacheable(res, `tiny origin ${req.url}`)));
    const proxy = await spawnProxyCommand(bin, ['proxy', '--origin', origin.url, '--port', '0'], app.dir);
    try {
      const miss = await fetch(`${proxy.url}/hello`);
      assert.equal(await miss.text(), 'tiny origin /hello');
      const hit = await fetch(`${proxy.url}/hello`);
      assert.match(hit.headers.get('cache-status')!, /^cachette; hit/);
      assert.equal(origin.received.length, 1);
    } finally {
      assert.equal(await proxy.stop(), 0);
    }
  }, 60_000);

  it('exports cachette/node/proxy without the optional peers, and says what the bridge needs', async () => {
    const imported = await inApp(process.execPath, ['--input-type=module', '-e', "const { startProxy } = await import('cachette/node/proxy'); console.log(typeof startProxy)"]);
    assert.equal(imported.stdout.trim(), 'function', imported.stderr);
    const bridge = await inApp(bin, ['bridge', '--port', '0']);
    assert.equal(bridge.code, 1);
    assert.match(bridge.stderr, /^cachette bridge: cachette\/node\/bridge needs the iovalkey package, which is not installed: npm install iovalkey\n/);
  }, 60_000);
});
