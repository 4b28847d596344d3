/**
 * Builds and packs the package the way a release does, in a scratch folder, so the checkout's
 * own dist/ is neither needed nor touched: the sources and configs are copied, compiled there
 * (source maps then point at the copied sources, as they will in the tarball), and `npm pack`
 * makes the tarball from that folder.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
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
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'adapters', 'runtimes']) {
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(staging, entry), { recursive: true });
  }
  // The compiler resolves the dependencies' types from the checkout's node_modules.
  symlinkSync(join(root, 'node_modules'), join(staging, 'node_modules'), 'dir');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(staging, 'tsconfig.build.json')], { cwd: staging, stdio: ['ignore', 'pipe', 'pipe'] });
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = (JSON.parse(json) as Array<Omit<PackedTarball, 'path'>>)[0]!;
  return { ...packed, path: join(work, packed.filename) };
}
