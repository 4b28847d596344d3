/**
 * Issue 30, item 5: cachette/koa, cachette/h3 and cachette/elysia from the packed tarball, each on
 * the lowest version of every major its peer range allows (from the npm registry: not the
 * checkout's versions): Koa 2 and 3 and h3 v2 on Node (bindings-lowest/node-app.mjs), Elysia on
 * Bun, where it runs (bindings-lowest/bun-app.mjs). Koa 2 from 2.4.1, the first with
 * `app.handleRequest`, which runs Koa's own response step; h3 from 2.0.1 (2.0.0's package
 * cannot be imported); Elysia from 1.4.4 (no 1.2.0 or 1.4.0 was published).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const bun = join(root, 'node_modules/.bin/bun');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

/** The lowest version of each major the peer ranges name, under the name each app imports. */
const LOWEST: Record<string, { peer: string; version: string }> = {
  koa: { peer: 'koa', version: '2.4.1' },
  koa3: { peer: 'koa', version: '3.0.0' },
  h3: { peer: 'h3', version: '2.0.1' },
  elysia: { peer: 'elysia', version: '1.4.4' },
};

let work: string;
let app: string;

describe('the packed package with the lowest Koa, h3 and Elysia', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'cachette-bindings-lowest-'));
    app = join(work, 'app');
    mkdirSync(app);
    const dependencies: Record<string, string> = { cachette: `file:${inject('packed').path}` };
    for (const [name, { peer, version }] of Object.entries(LOWEST)) dependencies[name] = name === peer ? version : `npm:${peer}@${version}`;
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'bindings-lowest-app', private: true, type: 'module', dependencies }));
    for (const file of ['node-app.mjs', 'bun-app.mjs', 'miss-hit.mjs']) cpSync(join(import.meta.dirname, 'bindings-lowest', file), join(app, file));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  }, 720_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs the lowest version of each major the peer ranges name', () => {
    for (const [name, { peer, version }] of Object.entries(LOWEST)) {
      const majors = [...manifest.peerDependencies[peer]!.matchAll(/\^(\d+\.\d+\.\d+)/g)].map((m) => m[1]);
      assert.ok(majors.includes(version), `${peer}: ${version} is a lower bound of ${manifest.peerDependencies[peer]}`);
      const installed = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      assert.equal(installed.version, version);
    }
  });

  it('runs cachette/koa on Koa 2 and 3 and cachette/h3 on h3 v2, on Node', async () => {
    const { stdout } = await run(process.execPath, ['node-app.mjs'], { cwd: app, timeout: 60_000 });
    assert.deepEqual(stdout.trim().split('\n'), ['ok koa@2.4.1', 'ok koa3@3.0.0', 'ok h3@2.0.1', 'node ok']);
  }, 90_000);

  it('runs cachette/elysia on Elysia 1.4.4, on Bun', async () => {
    const { stdout } = await run(bun, ['bun-app.mjs'], { cwd: app, timeout: 60_000 });
    assert.deepEqual(stdout.trim().split('\n'), ['ok elysia@1.4.4', 'bun ok']);
  }, 90_000);
});
