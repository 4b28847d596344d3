// `prepack` and `prepare`: builds dist/ (ES modules, declarations, source maps) with the
// repository's TypeScript, so that a tarball packed in a clone, and a package installed from git,
// have the files package.json "exports" names. Plain Node, like ensure-dependencies.mjs.
//
// When npm runs it (see `npm help scripts`):
// - `npm pack` / `npm publish` in a clone: prepack, then prepare; the second build is incremental
//   (dist/.tsbuildinfo, not shipped) and finds nothing to do.
// - `npm install git+…`: npm clones, runs `npm install` in the clone (devDependencies included, so
//   TypeScript is there), then packs it, which runs prepare; Yarn and pnpm run prepack instead.
// - `npm install ../cachette` (a link to a clone): prepare, in the clone.
// - `npm ci` / `npm install` of the repository itself, by a contributor or by the install step of
//   a git dependency: skipped. Nothing in the repository runs from dist/ (tsx runs the sources,
//   the package check builds its own copy, .ci/run builds after its type check), so a fresh
//   clone's `npm ci` stays as fast as it was; the pack that follows a git install builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { env } = process;

const ownInstall =
  env.npm_lifecycle_event === 'prepare' &&
  (env.npm_command === 'ci' || env.npm_command === 'install') &&
  !env.npm_package_resolved &&
  env.INIT_CWD !== undefined &&
  resolve(env.INIT_CWD) === resolve(root);
if (ownInstall) process.exit(0);

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  console.error('[build] TypeScript is not installed: building dist/ needs the devDependencies (npm ci without --omit=dev)');
  process.exit(1);
}
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error(`[build] tsc -p tsconfig.build.json failed (exit ${build.status ?? build.signal}): dist/ is incomplete, nothing to pack`);
  process.exit(build.status ?? 1);
}

// Every file an export points at must exist, or the package would install and fail on import.
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const targets = new Set();
const collect = (value) => {
  if (typeof value === 'string') targets.add(value);
  else if (value && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
};
collect(manifest.exports);
collect(manifest.bin);
const missing = [...targets].filter((target) => !existsSync(join(root, target)));
if (missing.length > 0) {
  console.error(`[build] package.json names files the build did not write: ${missing.join(', ')}`);
  process.exit(1);
}
