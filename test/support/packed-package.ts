/**
 * The package as a user gets it: packed the way a release does, from a clean clone, so the
 * checkout's own dist/ is neither needed nor touched. The clone holds what `git clone` of this
 * tree would once committed (tracked files and untracked ones git does not ignore, as they are
 * now, committed in a repository of its own), so uncommitted work is checked too; `npm pack` in
 * it runs the package's prepack build (scripts/setup/build-package.mjs), and the same clone
 * serves `npm install git+file://…`. Packed once per run (test/package/pack-setup.ts), then
 * installed into each project that needs it, with its dependencies linked from this checkout so
 * no network is needed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** What `npm pack --json` reports of the tarball. */
export interface PackedTarball {
  /** Absolute path of the .tgz. */
  path: string;
  /** The clean clone it was packed from: a git repository with one commit, for `git+file://` installs. */
  clone: string;
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

/** Copies the files a clone of `root` would hold into a new git repository at `clone`, committed. */
export function cleanClone(root: string, clone: string): string {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // --cached also lists tracked files deleted in the working tree: a commit would not hold them.
  for (const file of new Set(listed.split('\0').filter((path) => path && existsSync(join(root, path))))) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(root, file), join(clone, file));
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=cachette package check', '-c', 'user.email=package-check@localhost', '-c', 'commit.gpgsign=false', ...args], { cwd: clone, stdio: 'pipe' });
  git('init', '--quiet');
  git('add', '--all');
  git('commit', '--quiet', '--no-verify', '--message', 'the working tree, as a clone would hold it');
  return clone;
}

/** Clones `root` cleanly below `work` and packs it there; returns the tarball. */
export function packPackage(root: string, work: string): PackedTarball {
  const clone = cleanClone(root, join(work, 'clone'));
  // What `npm ci` would install, linked: the build resolves TypeScript and the dependencies' types there (untracked, so no git install sees it).
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: clone, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const packed = (JSON.parse(json) as Array<Omit<PackedTarball, 'path' | 'clone'>>)[0]!;
  return { ...packed, path: join(work, packed.filename), clone };
}

/** How an app links `{ name, from }`: the checkout's package `from` (an npm: alias, e.g. an older version) installed as `name`. */
export type LinkedPackage = string | { name: string; from: string };

/** npm's arguments for installing an app's manifest: from the cache and links only, no scripts, no lock file. */
const INSTALL = ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'];

/** Creates `app` with a manifest that depends on the tarball and on `linked` packages of the checkout. */
function writeAppManifest(tarball: string, app: string, root: string, linked: readonly LinkedPackage[]): void {
  mkdirSync(app, { recursive: true });
  const dependencies: Record<string, string> = { cachette: `file:${tarball}` };
  for (const entry of linked) {
    const { name, from } = typeof entry === 'string' ? { name: entry, from: entry } : entry;
    dependencies[name] = `file:${join(root, 'node_modules', from)}`;
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tarball-app', private: true, type: 'module', dependencies }));
}

/**
 * Installs the tarball into a fresh project at `app` (created), with `linked` packages (the
 * tarball's dependencies, and whatever peers the project should have) taken from the
 * checkout's node_modules: nothing comes from the network, and a peer left out is missing, as
 * it would be for a user who did not install it. Returns where the package was installed.
 */
export function installPacked(tarball: string, app: string, root: string, linked: readonly LinkedPackage[]): string {
  writeAppManifest(tarball, app, root, linked);
  execFileSync('npm', INSTALL, { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  return join(app, 'node_modules', 'cachette');
}

/** {@link installPacked} without blocking the event loop: for installs that run beside other work. */
export async function installPackedAsync(tarball: string, app: string, root: string, linked: readonly LinkedPackage[]): Promise<string> {
  writeAppManifest(tarball, app, root, linked);
  await promisify(execFile)('npm', INSTALL, { cwd: app, maxBuffer: 64 * 1024 * 1024 });
  return join(app, 'node_modules', 'cachette');
}
