/**
 * The package as a user gets it, for the checks of test/package: built and packed the way a
 * release does, in a scratch folder, so the checkout's own dist/ is neither needed nor
 * touched: the sources and configs are copied, compiled there (source maps then point at the
 * copied sources, as they will in the tarball), and `npm pack` makes the tarball from that
 * folder. Packed once per run (test/package/pack-setup.ts), then installed into each project
 * that needs it, with its dependencies linked from this checkout so no network is needed.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `npm pack --json` reports of the tarball. */
export interface PackedTarball {
  /** Absolute path of the .tgz. */
  path: string;
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

/** Copies, builds and packs the package at `root` below `work`; returns the tarball. */
export function packPackage(root: string, work: string): PackedTarball {
  const staging = join(work, 'package');
  // What package.json "files" ships (docs/ included), plus what npm always ships and the build needs.
  const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
  const shipped = files.filter((entry) => !entry.startsWith('!') && entry !== 'dist');
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', ...shipped]) {
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(staging, entry), { recursive: true });
  }
  // The compiler resolves the dependencies' types from the checkout's node_modules.
  symlinkSync(join(root, 'node_modules'), join(staging, 'node_modules'), 'dir');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(staging, 'tsconfig.build.json')], { cwd: staging, stdio: ['ignore', 'pipe', 'pipe'] });
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = (JSON.parse(json) as Array<Omit<PackedTarball, 'path'>>)[0]!;
  return { ...packed, path: join(work, packed.filename) };
}

/**
 * Installs the tarball into a fresh project at `app` (created), with `linked` packages (the
 * tarball's dependencies, and whatever peers the project should have) taken from the
 * checkout's node_modules: nothing comes from the network, and a peer left out is missing, as
 * it would be for a user who did not install it. Returns where the package was installed.
 */
export function installPacked(tarball: string, app: string, root: string, linked: readonly string[]): string {
  mkdirSync(app, { recursive: true });
  const dependencies: Record<string, string> = { cachette: `file:${tarball}` };
  for (const name of linked) dependencies[name] = `file:${join(root, 'node_modules', name)}`;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tarball-app', private: true, type: 'module', dependencies }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  return join(app, 'node_modules', 'cachette');
}
