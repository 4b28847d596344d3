/**
 * Packs the package once for every check in test/package (vitest global setup): each file
 * installs the same tarball instead of building and packing again, and the apps several checks
 * share (shared-apps.ts) are installed in the background while the first files run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { packPackage, type PackedTarball } from '../support/packed-package.ts';
import { installSharedApps } from './shared-apps.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball packed for this run. */
    packed: PackedTarball;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const work = mkdtempSync(join(tmpdir(), 'cachette-pack-'));
  const packed = packPackage(root, work);
  project.provide('packed', packed);
  const apps = join(work, 'apps');
  project.provide('sharedApps', apps);
  const installing = installSharedApps(packed.path, apps, root);
  return async () => {
    await installing;
    rmSync(work, { recursive: true, force: true });
  };
}
