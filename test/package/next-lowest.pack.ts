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
import { buildApp, copyAppFiles, nextEnv, Output, startServer, type NextServer } from '../next/next-app.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { watchChildren, type ChildWatch } from '../support/watchdog.ts';

const root = join(import.meta.dirname, '../..');
const LOWEST_NEXT = '15.0.0';
/** The React that Next 15.0.0 names as its peer for the App Router. */
const REACT = '19.0.0-rc-65a56d0e-20241020';
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

let work: string;
let app: string;
let redis: RedisServer | undefined;
let watch: ChildWatch | undefined;
const servers: NextServer[] = [];
const output = new Output();

async function read(server: NextServer, path: string, field: string): Promise<string> {
  const response = await fetch(server.url + path, { signal: AbortSignal.timeout(15_000) });
  const html = await response.text();
  assert.equal(response.status, 200, output.toString());
  const id = new RegExp(`id="${field}">([^<]+)<`).exec(html)?.[1];
  assert.ok(id, `no ${field} on ${path}:\n${html.slice(0, 400)}`);
  return id;
}

describe(`cachette/next on the lowest Next the peer range allows (${LOWEST_NEXT})`, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-next-lowest-'));
    app = join(work, 'app');
    mkdirSync(app);
    const linked = Object.fromEntries(['cbor-x', 'fflate', 'iovalkey'].map((name) => [name, `file:${join(root, 'node_modules', name)}`]));
    const dependencies = { cachette: `file:${inject('packed').path}`, ...linked, next: LOWEST_NEXT, react: REACT, 'react-dom': REACT };
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'next-lowest-app', private: true, type: 'module', dependencies }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
    copyAppFiles(join(import.meta.dirname, 'next-lowest'), app);
    await buildApp(app, nextEnv({ CACHETTE_STORE: 'memory' }), output, 150_000);
    redis = await startRedis();
    watch = watchChildren([redis.pid!]);
    const env = nextEnv({ REDIS_URL: redis.url });
    await Promise.all([startServer(app, env, output, '[a]', servers), startServer(app, env, output, '[b]', servers)]);
  }, 420_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await redis?.stop();
    watch?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('installs exactly the lower bound of the declared range', () => {
    assert.equal(manifest.peerDependencies.next!.split('||')[0]!.trim(), `^${LOWEST_NEXT}`);
    assert.equal((JSON.parse(readFileSync(join(app, 'node_modules', 'next', 'package.json'), 'utf8')) as { version: string }).version, LOWEST_NEXT);
  });

  it('shares pages between two instances, and a revalidateTag on one reaches the other', async () => {
    const [a, b] = servers as [NextServer, NextServer];
    const first = await read(a, '/', 'greeting');
    assert.equal(await read(b, '/', 'greeting'), first, 'b rendered the page again instead of reading a’s entry');
    const isr = await read(a, '/isr', 'isr');
    assert.equal(await read(b, '/isr', 'isr'), isr);
    const revalidated = await fetch(`${a.url}/api/revalidate?tag=greeting`, { method: 'POST', signal: AbortSignal.timeout(15_000) });
    assert.equal(revalidated.status, 200, output.toString());
    assert.notEqual(await read(b, '/', 'greeting'), first, 'b served the page a had revalidated');
  });
});
