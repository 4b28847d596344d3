import { defineConfig } from 'vitest/config';

/**
 * The package checks (`*.pack.ts`): the tarball is packed once (pack-setup.ts) and installed by
 * each file into its own project. Run by scripts/test after the Node suites.
 */
export default defineConfig({
  test: {
    include: ['test/package/*.pack.ts'],
    globalSetup: ['test/package/pack-setup.ts'],
    // Each file installs into a project of its own and mostly waits on npm and child processes:
    // three at once (vitest's default on two cores is one).
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
