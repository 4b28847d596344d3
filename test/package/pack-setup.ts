/**
 * Packs the package once for every check in test/package (vitest global setup): each file
 * installs the same tarball into its own project instead of building and packing again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { packPackage, type PackedTarball } from '../support/packed-package.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball packed for this run. */
    packed: PackedTarball;
  }
}

export default function setup(project: TestProject): () => void {
  const work = mkdtempSync(join(tmpdir(), 'cachette-pack-'));
  project.provide('packed', packPackage(fileURLToPath(new URL('../..', import.meta.url)), work));
  return () => rmSync(work, { recursive: true, force: true });
}
