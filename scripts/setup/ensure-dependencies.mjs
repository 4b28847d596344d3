// `prestart` and `pretest`: on a fresh clone, install the dependencies before `npm start` or
// `npm test` needs them. Plain Node (no dependency of its own), so it runs before anything is
// installed. It installs when node_modules is missing or older than package-lock.json, and
// otherwise costs one stat() of each.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lock = join(root, 'package-lock.json');
// npm writes node_modules/.package-lock.json last, once an install has completed.
const installed = join(root, 'node_modules', '.package-lock.json');

const stale = !existsSync(installed) || (existsSync(lock) && statSync(installed).mtimeMs < statSync(lock).mtimeMs);
if (stale) {
  const command = existsSync(lock) ? 'ci' : 'install';
  console.error(`[setup] dependencies missing or older than package-lock.json: running npm ${command}`);
  const npm = process.env.npm_execpath;
  // Under npm, npm_execpath is npm's own CLI script: run it with this Node, whatever PATH holds.
  const result = npm
    ? spawnSync(process.execPath, [npm, command, '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', [command, '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(`[setup] npm ${command} failed (exit ${result.status ?? result.signal}): install the dependencies by hand, then run the command again`);
    process.exit(result.status ?? 1);
  }
}
