// `node scripts/setup/better-sqlite3-prebuild.mjs <dir>`: packs this checkout's better-sqlite3
// add-on (node_modules/better-sqlite3/build/Release/better_sqlite3.node) into <dir> under the name
// of the release asset prebuild-install looks for, unless <dir> holds it already; prints its path.
//
// better-sqlite3's install script (prebuild-install, else node-gyp) fetches that asset from
// GitHub, which CI and the package check cannot reach, and otherwise compiles SQLite: minutes on
// a busy host, most of a fresh clone's npm ci. prebuild-install also looks in the folder named by
// npm_config_better_sqlite3_local_prebuilds: .ci/run keeps one outside the checkout, filled here
// after the first npm ci that compiled, and test/package/from-git.pack.ts hands the git install
// one. The asset's name carries the version, the Node ABI and the platform, so another version
// or another Node compiles again. Plain Node, like the other setup scripts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/setup/better-sqlite3-prebuild.mjs <dir>');
  process.exit(2);
}
const pkg = join(root, 'node_modules', 'better-sqlite3');
const addon = 'build/Release/better_sqlite3.node';
if (!existsSync(join(pkg, addon))) {
  console.error(`[prebuild] ${join(pkg, addon)} is missing: better-sqlite3 was not built, nothing to keep`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const asset = join(resolve(dir), `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
if (!existsSync(asset)) {
  mkdirSync(dirname(asset), { recursive: true });
  // Written beside, then renamed: a run that reads the folder meanwhile never sees half a tarball.
  const partial = `${asset}.${process.pid}.partial`;
  execFileSync('tar', ['-czf', partial, '-C', pkg, addon]);
  renameSync(partial, asset);
}
console.log(asset);
