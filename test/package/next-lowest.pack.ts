/**
 * Issue 22, item 1: the `next` peer range starts at 15.0.0, and this proves it. The packed
 * tarball is installed into a fresh app with the lowest Next the range allows (from the npm
 * registry, with the React it asks for), built with `next build`, and served by two `next start`
 * instances over one redis-server: the incremental cache handler (App Router ISR with
 * `unstable_cache` tags, a Pages Router ISR page) shares pages between them, and a
 * `revalidateTag` on one reaches the other. `"use cache"` is canary-only on Next 15: the
 * handlers of `cacheHandlers` run on 16, in test/next/next.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { copyAppFiles, nextEnv, TwoInstances, type NextServer } from '../next/next-app.ts';
import { eventually } from '../support/eventually.ts';

const root = join(import.meta.dirname, '../..');
const LOWEST_NEXT = '15.0.0';
/** The React that Next 15.0.0 names as its peer for the App Router. */
const REACT = '19.0.0-rc-65a56d0e-20241020';
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

let work: string;
let app: string;
let deployment: TwoInstances;

async function read(server: NextServer, path: string, field: string): Promise<string> {
  const response = await fetch(server.url + path, { signal: AbortSignal.timeout(15_000) });
  const html = await response.text();
  assert.equal(response.status, 200, deployment.output.toString());
  const id = new RegExp(`id="${field}">([^<]+)<`).exec(html)?.[1];
  assert.ok(id, `no ${field} on ${path}:\n${html.slice(0, 400)}`);
  return id;
}

describe(`cachette/next on the lowest Next the peer range allows (${LOWEST_NEXT})`, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-next-lowest-'));
    app = join(work, 'app');
    mkdirSync(app);
    deployment = new TwoInstances(app);
    const linked = Object.fromEntries(['cbor-x', 'fflate', 'iovalkey'].map((name) => [name, `file:${join(root, 'node_modules', name)}`]));
    const dependencies = { cachette: `file:${inject('packed').path}`, ...linked, next: LOWEST_NEXT, react: REACT, 'react-dom': REACT };
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'next-lowest-app', private: true, type: 'module', dependencies }));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    copyAppFiles(join(import.meta.dirname, 'next-lowest'), app);
    await deployment.start();
  }, 900_000);

  afterAll(async () => {
    await deployment.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('installs exactly the lower bound of the declared range', () => {
    assert.equal(manifest.peerDependencies.next!.split('||')[0]!.trim(), `^${LOWEST_NEXT}`);
    assert.equal((JSON.parse(readFileSync(join(app, 'node_modules', 'next', 'package.json'), 'utf8')) as { version: string }).version, LOWEST_NEXT);
  });

  it('names a missing peer and the command that installs it, when the environment picks a store that needs one', () => {
    // The app has neither better-sqlite3 nor @upstash/redis: the peers are optional.
    const script = [
      "const { createIncrementalCacheHandler } = await import('cachette/next');",
      'const Handler = createIncrementalCacheHandler({ log: false, logger: false });',
      "try { await new Handler().get('/', { kind: 'APP_PAGE' }); console.log('read'); } catch (error) { console.log(error.name + ': ' + error.message); }",
    ].join('\n');
    const run = (env: Record<string, string>) => execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env: nextEnv(env), encoding: 'utf8' });
    assert.match(run({ CACHETTE_STORE: `sqlite:${join(work, 'cache.db')}` }), /^MissingPeerError: .*better-sqlite3.*npm install better-sqlite3/m);
    assert.match(run({ UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1', UPSTASH_REDIS_REST_TOKEN: 'token' }), /^MissingPeerError: .*@upstash\/redis.*npm install @upstash\/redis/m);
  });

  it('shares pages between two instances, and a revalidateTag on one reaches the other', async () => {
    const [a, b] = deployment.pair;
    const first = await read(a, '/', 'greeting');
    assert.equal(await read(b, '/', 'greeting'), first, 'b rendered the page again instead of reading a’s entry');
    const isr = await read(a, '/isr', 'isr');
    assert.equal(await read(b, '/isr', 'isr'), isr);
    const revalidated = await fetch(`${a.url}/api/revalidate?tag=greeting`, { method: 'POST', signal: AbortSignal.timeout(15_000) });
    assert.equal(revalidated.status, 200, deployment.output.toString());
    // Next runs a route handler's revalidations after its response (pendingWaitUntil): b sees
    // the revalidation on its first read after it reached the store.
    await eventually(async () => (await read(b, '/', 'greeting')) !== first, 'b served a new page after a revalidated its tag', 100);
  });
});
