import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Compiles the sources and the bench to plain JavaScript under bench/.build, so that the
 * measured processes run the built code, as users do, and not through tsx.
 */
export function buildBench(): void {
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'bench', 'tsconfig.build.json')], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`compiling the bench failed (tsc exited with ${run.status})`);
}
