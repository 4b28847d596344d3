/**
 * Issue 33, item 1: a package packed or installed from the repository had no dist/ (no
 * prepack/prepare build), so `import('cachette')` failed with ERR_MODULE_NOT_FOUND. As a user
 * meets it: the tarball `npm pack` made in a clean clone (pack-setup.ts) and that clone as a
 * `git+file://` URL, each installed by npm into a fresh app with its dependencies from the
 * registry (npm clones the git one, installs its devDependencies and runs prepare), then imported
 * on Node, Bun and Deno. And item 9: cbor-x's optional native add-on (cbor-extract), whose install
 * script npm 11 asks about: with the script skipped, cachette works (cbor-x decodes in JavaScript).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { runInApp } from './run-in-app.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, 'from-git');
const BIN = join(root, 'node_modules', '.bin');

/** The runtimes the apps run on, with what each needs to run a module. */
const RUNTIMES = [
  { name: 'node', file: process.execPath, args: [] as string[] },
  { name: 'bun', file: join(BIN, 'bun'), args: ['run'] },
  { name: 'deno', file: join(BIN, 'deno'), args: ['run', '--allow-read', '--allow-env'] },
];

let work: string;
const apps: Record<'tarball' | 'git', string> = { tarball: '', git: '' };

/**
 * better-sqlite3 (a devDependency the git install puts in the clone to build in it) fetches its
 * prebuilt binary from GitHub, which this machine cannot reach, and otherwise compiles SQLite for
 * minutes. prebuild-install also looks in a folder named by `npm_config_better_sqlite3_local_prebuilds`:
 * the checkout's own build, packed under the name GitHub's release asset has
 * (scripts/setup/better-sqlite3-prebuild.mjs), stands in for it.
 */
function localPrebuilds(dir: string): NodeJS.ProcessEnv {
  execFileSync(process.execPath, [join(root, 'scripts', 'setup', 'better-sqlite3-prebuild.mjs'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/** A fresh app at `dir` with `npm install <spec>` as a user types it: dependencies from the registry (the cache first), npm's own script policy. */
async function installApp(dir: string, spec: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }));
  cpSync(fixtures, dir, { recursive: true });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...extra, spec], { cwd: dir, env: { ...process.env, ...env }, timeout: 20 * 60_000, maxBuffer: 64 * 1024 * 1024 });
}

describe('the package installed from a tarball packed in a clone, and from git', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cachette-from-git-'));
    const packed = inject('packed');
    apps.tarball = join(work, 'tarball');
    apps.git = join(work, 'git');
    // The git install clones, installs the repository's devDependencies (to build) and packs: minutes, so both at once.
    // The tarball app skips every dependency's install script, as npm 11 does for those allowScripts does not name.
    await Promise.all([installApp(apps.tarball, packed.path, ['--ignore-scripts']), installApp(apps.git, `git+file://${packed.clone}`, [], localPrebuilds(join(work, 'prebuilds')))]);
  }, 25 * 60_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const from of ['tarball', 'git'] as const) {
    for (const runtime of RUNTIMES) {
      it(`imports cachette from dist/ on ${runtime.name}, installed from the ${from}`, async () => {
        const result = await runInApp(apps[from], runtime.file, [...runtime.args, 'check.mjs']);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, `${runtime.name}: cachette from dist/runtimes/native/index.js, 1 call, a Date and a Set back\n`);
      }, 60_000);
    }
  }

  it("works with cbor-x's optional native add-on installed and its install script skipped", async () => {
    assert.ok(existsSync(join(apps.tarball, 'node_modules', 'cbor-extract', 'package.json')), 'npm installed cbor-extract (an optional dependency of cbor-x)');
    const result = await runInApp(apps.tarball, process.execPath, ['cbor.mjs']);
    assert.equal(result.code, 0, result.stderr);
    // Whether the add-on loads depends on a prebuilt binary for the platform (cbor-extract 2.2.3 ships none): either way the values come back whole.
    assert.match(result.stdout, /^native add-on (loaded|not loaded), round trip ok\n$/);
  }, 60_000);
});
