/**
 * Issue 13, item 7: the `cachette` bin as a user gets it — built, packed with `npm pack`,
 * installed into a fresh app, run with npx, and the proxy run for real against a tiny origin.
 * Optional peers (iovalkey, hono) are not installed: `cachette proxy` must not need them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cacheable, closesAfterEach, recordingOrigin, spawnProxyCommand } from './support.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const closing = closesAfterEach();
let work: string;
let app: string;

/** Runs a command in the app; resolves its exit code and output instead of throwing on failure. */
async function inApp(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: app, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the packed package', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-packed-'));
    const pkg = join(work, 'package');
    app = join(work, 'app');
    mkdirSync(app);
    // Built into a scratch folder, so the checkout's own dist/ is neither needed nor touched.
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')]);
    for (const file of ['package.json', 'README.md']) cpSync(join(root, file), join(pkg, file));
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: pkg });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tarball-app', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, stdout.trim())], { cwd: app });
  }, 240_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

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
    const proxy = await spawnProxyCommand(join(app, 'node_modules/.bin/cachette'), ['proxy', '--origin', origin.url, '--port', '0'], app);
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
    const bridge = await inApp(join(app, 'node_modules/.bin/cachette'), ['bridge', '--port', '0']);
    assert.equal(bridge.code, 1);
    assert.match(bridge.stderr, /^cachette bridge: needs the iovalkey package \(npm install iovalkey\)/);
  }, 60_000);
});
