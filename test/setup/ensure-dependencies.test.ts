import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '../../scripts/setup/ensure-dependencies.mjs');
let root: string;

/** A checkout with the script, a lockfile and a stand-in for npm that records its arguments. */
function checkout(npmExit = 0): { run: () => ReturnType<typeof spawnSync>; calls: () => string[][] } {
  root = mkdtempSync(join(tmpdir(), 'cachette-setup-'));
  mkdirSync(join(root, 'scripts/setup'), { recursive: true });
  copyFileSync(script, join(root, 'scripts/setup/ensure-dependencies.mjs'));
  writeFileSync(join(root, 'package-lock.json'), '{}\n');
  const log = join(root, 'npm-calls.jsonl');
  const npm = join(root, 'fake-npm.cjs');
  writeFileSync(
    npm,
    `const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');
if (${npmExit} === 0) { fs.mkdirSync(${JSON.stringify(join(root, 'node_modules'))}, { recursive: true }); fs.writeFileSync(${JSON.stringify(join(root, 'node_modules/.package-lock.json'))}, '{}'); }
process.exit(${npmExit});
`,
  );
  return {
    run: () => spawnSync(process.execPath, [join(root, 'scripts/setup/ensure-dependencies.mjs')], { env: { ...process.env, npm_execpath: npm }, encoding: 'utf8' }),
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as string[])
        : [],
  };
}

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('prestart / pretest: dependencies on a fresh clone', () => {
  it('runs npm ci when node_modules is missing, and nothing once it is installed', () => {
    const { run, calls } = checkout();
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/running npm ci/);
    expect(calls()).toEqual([['ci', '--no-audit', '--no-fund']]);
    expect(run().status).toBe(0);
    expect(calls()).toHaveLength(1);
  });

  it('installs again when package-lock.json is newer than the last install', () => {
    const { run, calls } = checkout();
    run();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'package-lock.json'), later, later);
    expect(run().status).toBe(0);
    expect(calls()).toHaveLength(2);
  });

  it('fails with the install’s exit code and says what to do when the install fails', () => {
    const { run } = checkout(3);
    const result = run();
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/npm ci failed \(exit 3\): install the dependencies by hand/);
  });
});
