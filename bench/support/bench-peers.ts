/**
 * Contenders that need a native build this machine cannot download prebuilt (node-gyp from
 * source, minutes of CPU) are installed on first use into bench/.peers, outside the project's
 * dependencies, so that `npm ci` and CI never pay for them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const peers = join(dirname(fileURLToPath(import.meta.url)), '..', '.peers');

/** Imports `name` at `version` from bench/.peers, installing it there first when it is missing. */
export async function importBenchPeer<T>(name: string, version: string): Promise<T> {
  const installed = join(peers, 'node_modules', name, 'package.json');
  if (!existsSync(installed)) {
    console.error(`[bench] installing ${name}@${version} into bench/.peers (once; it builds native code)…`);
    const run = spawnSync('npm', ['install', '--prefix', peers, '--no-save', '--no-audit', '--no-fund', `${name}@${version}`], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`could not install ${name}@${version} into bench/.peers (npm exited with ${run.status})`);
  }
  const require = createRequire(join(peers, 'package.json'));
  return (await import(pathToFileURL(require.resolve(name)).href)) as T;
}
