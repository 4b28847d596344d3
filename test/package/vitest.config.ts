import { defineConfig } from 'vitest/config';

/**
 * The package checks (`*.pack.ts`): the tarball is packed once (pack-setup.ts) and installed by
 * each file into its own project. Run by scripts/test after the Node suites.
 */
export default defineConfig({
  test: {
    include: ['test/package/*.pack.ts'],
    globalSetup: ['test/package/pack-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
